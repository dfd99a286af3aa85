// Reading JSON text: a JSON value (null, bool, number, string, array, object) and a strict,
// depth-limited RFC 8259 parser for the logs' readers (event_log_reader.h). Every malformed input
// is a LogFormatError naming where; numbers read back the doubles written (std::from_chars).
#ifndef SALTATION_JSON_VALUE_H_
#define SALTATION_JSON_VALUE_H_

#include <string>
#include <string_view>
#include <vector>

#include "saltation/errors.h"

namespace saltation {

// Malformed log or JSON text; the message says where (file:line) and what.
class LogFormatError : public Error {
 public:
  using Error::Error;
};

// A JSON value: null, true/false, a number, a string, an array or an object (keys in order).
class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }
  bool boolean() const { return boolean_; }
  double number() const { return number_; }
  const std::string& string() const { return string_; }
  const std::vector<JsonValue>& items() const { return items_; }      // array elements, object values
  const std::vector<std::string>& keys() const { return keys_; }      // object keys
  const JsonValue* Find(std::string_view key) const;                  // an object's member, or nullptr

 private:
  friend class JsonParser;
  Type type_ = Type::kNull;
  bool boolean_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  std::vector<std::string> keys_;
};

// One JSON text (surrounding whitespace allowed; anything after the value is an error). Depth
// is limited to 64. LogFormatError "<where>: column N: …".
JsonValue ParseJson(std::string_view text, const std::string& where = "JSON");

}  // namespace saltation

#endif  // SALTATION_JSON_VALUE_H_
