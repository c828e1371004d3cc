// JsonScanner: a validating JSON reader over a text buffer that builds no DOM. Watch
// decoding and the informer cache use it instead of nlohmann::json::parse: an event is
// read once, its few metadata fields are picked out, and the rest is copied as text.
//
// Grammar: RFC 8259, accepting exactly what nlohmann::json accepts (strict: UTF-8
// checked, escapes and surrogate pairs checked, no trailing commas, no comments, numbers
// that overflow a double rejected; nesting unlimited, read without recursion). Errors are
// sticky: after the first one every call fails and error() says where.
// Single-owner; the text must outlive the scanner and the views it hands out.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace dgd::kube {

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : text_(text) {}

  // Skips whitespace; the next byte, or '\0' at the end of the text.
  char peek();
  // Consumes `c` (after whitespace) if it is next; false otherwise (not an error).
  bool consume(char c);
  // Requires `c` next; otherwise records an error.
  bool expect(char c);
  // Reads a string; `raw` is the text between the quotes, escapes left as they are.
  bool string(std::string_view& raw);
  // Reads a string and decodes its escapes into `out`.
  bool string_value(std::string& out);
  // Reads one value of any type. If `out` is given, appends the value's compact text
  // (whitespace outside strings dropped; strings and numbers as written).
  bool value(std::string* out = nullptr);
  // Reads `true` or `false`.
  bool boolean(bool& out);
  // True if only whitespace is left.
  bool at_end();

  // Object iteration: `if (s.begin_object()) while (s.next_member(key)) { ...read value... }`
  // then check ok(). next_member consumes the separating ',' and the closing '}'.
  bool begin_object();
  bool next_member(std::string_view& raw_key);
  // Array iteration, same shape: `while (s.next_element()) { ...read value... }`.
  bool begin_array();
  bool next_element();

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t pos() const { return pos_; }
  bool fail(const char* why);

  // Decodes a string's raw text (as string() returns it, already validated).
  static std::string unescape(std::string_view raw);
  // True if the raw (still escaped) string `raw` decodes to `want`.
  static bool raw_equals(std::string_view raw, std::string_view want) {
    return raw.find('\\') == std::string_view::npos ? raw == want : unescape(raw) == want;
  }

 private:
  void skip_ws();
  bool value_at(std::string* out);
  bool number();
  bool literal(std::string_view word);

  std::string_view text_;
  size_t pos_ = 0;
  size_t ws_skipped_ = 0;  // bytes of whitespace skipped so far (0: copy spans verbatim)
  // True right after begin_object/begin_array: the next item needs no ',' before it.
  bool just_opened_ = false;
  std::string error_;
};

}  // namespace dgd::kube
