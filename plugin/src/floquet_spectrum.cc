#include "floquet_spectrum.h"

#include <algorithm>
#include <cmath>

namespace saltation {

FloquetSpectrum SplitSpectrum(const Eigen::MatrixXd& M, const Eigen::VectorXd& flow,
                              const std::vector<Eigen::VectorXd>& symmetries) {
  const int n = static_cast<int>(M.rows());
  FloquetSpectrum out;
  auto rayleigh = [&](const Eigen::VectorXd& v, double* error) {
    const Eigen::VectorXd Mv = M * v;
    *error = (Mv - v).norm() / v.norm();
    return v.dot(Mv) / v.squaredNorm();
  };
  // the known eigen-directions, orthonormalised in order (flow first)
  Eigen::MatrixXd known(n, 0);
  auto add = [&](const Eigen::VectorXd& v) {
    Eigen::VectorXd r = v - known * (known.transpose() * v);
    if (r.norm() < 1e-6 * v.norm()) return false;
    known.conservativeResize(n, known.cols() + 1);
    known.col(known.cols() - 1) = r / r.norm();
    return true;
  };
  if (n > 0 && flow.norm() > 0 && add(flow)) {
    out.has_trivial = true;
    out.trivial = rayleigh(flow, &out.trivial_error);
  }
  for (const Eigen::VectorXd& e : symmetries) {
    if (!add(e)) continue;
    double error = 0;
    out.symmetry.push_back(rayleigh(e, &error));
    out.symmetry_error.push_back(error);
  }
  // the rest: the map induced on the quotient by the known directions
  const int k = static_cast<int>(known.cols());
  if (k == 0) {
    out.rest = SortedEigenvalues(M);
    return out;
  }
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(known);
  const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd W = Q.rightCols(n - k);
  out.rest = n > k ? SortedEigenvalues(W.transpose() * M * W) : Eigen::VectorXcd(0);
  return out;
}

Eigen::VectorXcd AllMultipliers(const FloquetSpectrum& s, int* trivial_index) {
  std::vector<std::complex<double>> all(s.rest.data(), s.rest.data() + s.rest.size());
  for (double mu : s.symmetry) all.emplace_back(mu);
  if (s.has_trivial) all.emplace_back(s.trivial);
  Eigen::VectorXcd v = Eigen::Map<Eigen::VectorXcd>(all.data(), all.size());
  // SortedEigenvalues' order, applied to a diagonal matrix of the values would lose complex pairs:
  // sort directly with the same rule
  std::vector<std::complex<double>> sorted(v.data(), v.data() + v.size());
  std::stable_sort(sorted.begin(), sorted.end(), [](const std::complex<double>& a, const std::complex<double>& b) {
    if (std::abs(std::abs(a) - std::abs(b)) > 1e-12) return std::abs(a) > std::abs(b);
    return a.real() > b.real();
  });
  if (trivial_index) {
    *trivial_index = -1;
    for (size_t i = 0; i < sorted.size() && s.has_trivial; i++) {
      if (sorted[i] == std::complex<double>(s.trivial)) {
        *trivial_index = static_cast<int>(i);
        break;
      }
    }
  }
  return Eigen::Map<Eigen::VectorXcd>(sorted.data(), sorted.size());
}

}  // namespace saltation
