// Bit-for-bit equality: the memo keys of FieldMemo (events.h) and of the re-simulation's shared
// forward pass (resimulation.h), the bases of the compact matrix JSON (event_json.h). Unlike ==,
// 0.0 and −0.0 differ and a NaN equals the same NaN: the same bits in give the same bits out.
//
//   SameBits (double a, double b)                  => whether a and b have the same bits
//   SameBits (Eigen vector or matrix a, b, of one  => the same shape and every entry with the same
//             type)                                   bits (empty ones: memcmp never sees their
//                                                     data(), which may be null: UBSan halts on it)
//
// Reads its arguments only.
#ifndef SALTATION_SAME_BITS_H_
#define SALTATION_SAME_BITS_H_

#include <Eigen/Core>
#include <cstring>

namespace saltation {

inline bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

template <typename Derived>
bool SameBits(const Eigen::PlainObjectBase<Derived>& a, const Eigen::PlainObjectBase<Derived>& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(typename Derived::Scalar) * a.size()) == 0);
}

}  // namespace saltation

#endif  // SALTATION_SAME_BITS_H_
