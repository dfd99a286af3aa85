#include "saltation/json_value.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace saltation {

constexpr int kMaxDepth = 64;

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (type_ != Type::kObject) return nullptr;
  for (size_t i = 0; i < keys_.size(); i++) {
    if (keys_[i] == key) return &items_[i];
  }
  return nullptr;
}

// A recursive-descent parser of RFC 8259 JSON, depth-limited; every failure a LogFormatError.
class JsonParser {
 public:
  JsonParser(std::string_view text, const std::string& where) : s_(text), where_(where) {}

  JsonValue Parse() {
    JsonValue v;
    Space();
    Value(v, 0);
    Space();
    if (pos_ != s_.size()) Fail("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw LogFormatError(where_ + ": column " + std::to_string(pos_ + 1) + ": " + what);
  }
  bool End() const { return pos_ >= s_.size(); }
  char Peek() const { return End() ? '\0' : s_[pos_]; }
  void Space() {
    while (!End() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) pos_++;
  }
  void Expect(char c) {
    if (Peek() != c || End()) Fail(std::string("expected '") + c + "'");
    pos_++;
  }
  void Literal(const char* word) {
    for (const char* p = word; *p; p++) {
      if (End() || s_[pos_] != *p) Fail(std::string("expected ") + word);
      pos_++;
    }
  }

  void Value(JsonValue& v, int depth) {
    if (depth > kMaxDepth) Fail("nested deeper than " + std::to_string(kMaxDepth));
    if (End()) Fail("unexpected end of text");
    const char c = s_[pos_];
    if (c == '{') {
      v.type_ = JsonValue::Type::kObject;
      pos_++;
      Space();
      if (Peek() == '}' && !End()) {
        pos_++;
        return;
      }
      while (true) {
        Space();
        if (Peek() != '"' || End()) Fail("expected a key in quotes");
        std::string key;
        String(key);
        for (const std::string& k : v.keys_) {
          if (k == key) Fail("duplicate key \"" + key + "\"");
        }
        Space();
        Expect(':');
        Space();
        v.keys_.push_back(std::move(key));
        v.items_.emplace_back();
        Value(v.items_.back(), depth + 1);
        Space();
        if (Peek() == ',' && !End()) {
          pos_++;
          continue;
        }
        Expect('}');
        return;
      }
    }
    if (c == '[') {
      v.type_ = JsonValue::Type::kArray;
      pos_++;
      Space();
      if (Peek() == ']' && !End()) {
        pos_++;
        return;
      }
      while (true) {
        Space();
        v.items_.emplace_back();
        Value(v.items_.back(), depth + 1);
        Space();
        if (Peek() == ',' && !End()) {
          pos_++;
          continue;
        }
        Expect(']');
        return;
      }
    }
    if (c == '"') {
      v.type_ = JsonValue::Type::kString;
      String(v.string_);
      return;
    }
    if (c == 't') {
      Literal("true");
      v.type_ = JsonValue::Type::kBool;
      v.boolean_ = true;
      return;
    }
    if (c == 'f') {
      Literal("false");
      v.type_ = JsonValue::Type::kBool;
      return;
    }
    if (c == 'n') {
      Literal("null");
      return;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.type_ = JsonValue::Type::kNumber;
      v.number_ = Number();
      return;
    }
    Fail(std::string("unexpected character '") + (static_cast<unsigned char>(c) < 0x20 ? '?' : c) + "'");
  }

  static bool Digit(char c) { return c >= '0' && c <= '9'; }

  double Number() {
    const size_t start = pos_;
    if (Peek() == '-') pos_++;
    if (!Digit(Peek()) || End()) Fail("bad number");
    if (s_[pos_] == '0') {
      pos_++;
    } else {
      while (!End() && Digit(s_[pos_])) pos_++;
    }
    if (!End() && s_[pos_] == '.') {
      pos_++;
      if (End() || !Digit(s_[pos_])) Fail("bad number: no digit after '.'");
      while (!End() && Digit(s_[pos_])) pos_++;
    }
    if (!End() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      pos_++;
      if (!End() && (s_[pos_] == '+' || s_[pos_] == '-')) pos_++;
      if (End() || !Digit(s_[pos_])) Fail("bad number: no digit in the exponent");
      while (!End() && Digit(s_[pos_])) pos_++;
    }
    double x = 0;
    const std::from_chars_result r = std::from_chars(s_.data() + start, s_.data() + pos_, x);
    if (r.ec == std::errc::result_out_of_range) {
      // underflow reads as the nearest representable (0 or a subnormal), overflow is an error
      const std::string text(s_.substr(start, pos_ - start));
      const double y = std::strtod(text.c_str(), nullptr);
      if (std::isinf(y)) Fail("number out of range: " + text);
      return y;
    }
    if (r.ec != std::errc() || r.ptr != s_.data() + pos_) Fail("bad number");
    return x;
  }

  unsigned Hex4() {
    if (s_.size() - pos_ < 4) Fail("bad \\u escape");
    unsigned u = 0;
    for (int i = 0; i < 4; i++) {
      const char c = s_[pos_++];
      u <<= 4;
      if (c >= '0' && c <= '9') {
        u |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        u |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        u |= c - 'A' + 10;
      } else {
        Fail("bad \\u escape");
      }
    }
    return u;
  }

  static void Utf8(unsigned cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  void String(std::string& out) {
    Expect('"');
    while (true) {
      if (End()) Fail("unterminated string");
      const char c = s_[pos_++];
      if (c == '"') return;
      if (static_cast<unsigned char>(c) < 0x20) Fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (End()) Fail("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = Hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.size() - pos_ < 2 || s_[pos_] != '\\' || s_[pos_ + 1] != 'u') Fail("unpaired surrogate in a \\u escape");
            pos_ += 2;
            const unsigned low = Hex4();
            if (low < 0xDC00 || low > 0xDFFF) Fail("unpaired surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            Fail("unpaired surrogate in a \\u escape");
          }
          Utf8(cp, out);
          break;
        }
        default:
          Fail(std::string("bad escape '\\") + (static_cast<unsigned char>(e) < 0x20 ? '?' : e) + "'");
      }
    }
  }

  std::string_view s_;
  std::string where_;
  size_t pos_ = 0;
};

JsonValue ParseJson(std::string_view text, const std::string& where) { return JsonParser(text, where).Parse(); }

}  // namespace saltation
