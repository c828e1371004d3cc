#include "dgd/kube/watch_scan.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace dgd::kube {

namespace {

// Bytes a string can hold without a closer look: printable ASCII except '"' and '\'.
struct PlainTable {
  bool plain[256];
  constexpr PlainTable() : plain() {
    for (int c = 0; c < 256; ++c) plain[c] = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
  }
};
constexpr PlainTable kPlain;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads 4 hex digits at s[i..i+4); -1 if they are not.
long hex4(std::string_view s, size_t i) {
  if (i + 4 > s.size()) return -1;
  long v = 0;
  for (size_t k = 0; k < 4; ++k) {
    int h = hex_value(s[i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

void append_utf8(std::string& out, uint32_t cp) {
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

// Length of the well-formed UTF-8 sequence starting at s[i] (a byte >= 0x80), 0 if it is not
// one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  auto cont = [&](size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  unsigned char c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// Appends already validated JSON `text` without the whitespace outside strings.
void append_compact(std::string& out, std::string_view text) {
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\') out += text[++i];
      else if (c == '"') in_string = false;
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      out += c;
      in_string = c == '"';
    }
  }
}

}  // namespace

bool JsonScanner::fail(const char* why) {
  if (error_.empty()) error_ = std::string(why) + " at offset " + std::to_string(pos_);
  pos_ = text_.size();  // every later read fails
  return false;
}

void JsonScanner::skip_ws() {
  size_t start = pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
    ++pos_;
  }
  ws_skipped_ += pos_ - start;
}

char JsonScanner::peek() {
  skip_ws();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool JsonScanner::consume(char c) {
  if (!ok() || peek() != c) return false;
  ++pos_;
  return true;
}

bool JsonScanner::expect(char c) {
  if (consume(c)) return true;
  if (!ok()) return false;
  static const char* const kWhy[] = {"expected ':'", "expected ','", "expected '}'", "expected ']'", "expected '{'",
                                     "expected '['"};
  switch (c) {
    case ':': return fail(kWhy[0]);
    case ',': return fail(kWhy[1]);
    case '}': return fail(kWhy[2]);
    case ']': return fail(kWhy[3]);
    case '{': return fail(kWhy[4]);
    default: return fail(kWhy[5]);
  }
}

bool JsonScanner::begin_object() {
  if (!expect('{')) return false;
  just_opened_ = true;
  return true;
}

bool JsonScanner::next_member(std::string_view& raw_key) {
  if (!ok()) return false;
  if (consume('}')) {
    just_opened_ = false;
    return false;
  }
  if (!just_opened_ && !expect(',')) return false;
  // string() clears just_opened_.
  return string(raw_key) && expect(':');
}

bool JsonScanner::begin_array() {
  if (!expect('[')) return false;
  just_opened_ = true;
  return true;
}

bool JsonScanner::next_element() {
  if (!ok()) return false;
  if (consume(']')) {
    just_opened_ = false;
    return false;
  }
  if (!just_opened_ && !expect(',')) return false;
  just_opened_ = false;
  return true;
}

bool JsonScanner::at_end() {
  skip_ws();
  return pos_ == text_.size();
}

bool JsonScanner::string(std::string_view& raw) {
  just_opened_ = false;
  if (!consume('"')) return ok() ? fail("expected a string") : false;
  const size_t start = pos_;
  const size_t n = text_.size();
  for (;;) {
    // 8 bytes at a time while none is '"', '\\', a control character or non-ASCII.
    while (pos_ + 8 <= n) {
      uint64_t v;
      std::memcpy(&v, text_.data() + pos_, 8);
      constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
      auto has_zero = [&](uint64_t x) { return (x - kOnes) & ~x & kHigh; };
      uint64_t special = has_zero(v ^ (kOnes * '"')) | has_zero(v ^ (kOnes * '\\')) |
                         ((v - kOnes * 0x20) & ~v & kHigh) | (v & kHigh);
      if (special) break;
      pos_ += 8;
    }
    while (pos_ < n && kPlain.plain[static_cast<unsigned char>(text_[pos_])]) ++pos_;
    if (pos_ >= n) return fail("unterminated string");
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      raw = text_.substr(start, pos_ - start);
      ++pos_;
      return true;
    }
    if (c == '\\') {
      if (pos_ + 1 >= n) return fail("unterminated string");
      char e = text_[pos_ + 1];
      if (e == 'u') {
        long cp = hex4(text_, pos_ + 2);
        if (cp < 0) return fail("bad \\u escape");
        pos_ += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("lone low surrogate");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (pos_ + 1 >= n || text_[pos_] != '\\' || text_[pos_ + 1] != 'u') return fail("lone high surrogate");
          long lo = hex4(text_, pos_ + 2);
          if (lo < 0xDC00 || lo > 0xDFFF) return fail("lone high surrogate");
          pos_ += 6;
        }
        continue;
      }
      if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') {
        return fail("bad escape");
      }
      pos_ += 2;
      continue;
    }
    if (c < 0x20) return fail("control character in string");
    size_t len = utf8_length(text_, pos_);
    if (len == 0) return fail("invalid UTF-8");
    pos_ += len;
  }
}

std::string JsonScanner::unescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      out += c;
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        long cp = hex4(raw, i + 1);
        if (cp < 0) return out;  // not from string(): stop rather than read past the end
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u') {
          long lo = hex4(raw, i + 3);
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          }
        }
        append_utf8(out, static_cast<uint32_t>(cp));
        break;
      }
      default: out += e; break;  // '"', '\\', '/'
    }
  }
  return out;
}

bool JsonScanner::string_value(std::string& out) {
  std::string_view raw;
  if (!string(raw)) return false;
  if (raw.find('\\') == std::string_view::npos) out.assign(raw);
  else out = unescape(raw);
  return true;
}

bool JsonScanner::number() {
  const size_t n = text_.size();
  const size_t start = pos_;
  auto digit = [&] { return pos_ < n && text_[pos_] >= '0' && text_[pos_] <= '9'; };
  if (pos_ < n && text_[pos_] == '-') ++pos_;
  if (!digit()) return fail("bad number");
  if (text_[pos_] == '0') {
    ++pos_;
  } else {
    while (digit()) ++pos_;
  }
  if (pos_ < n && text_[pos_] == '.') {
    ++pos_;
    if (!digit()) return fail("bad number");
    while (digit()) ++pos_;
  }
  bool exponent = false;
  if (pos_ < n && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    exponent = true;
    ++pos_;
    if (pos_ < n && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (!digit()) return fail("bad number");
    while (digit()) ++pos_;
  }
  // A number too large for a double is an error (as in nlohmann::json, which the rest of
  // the operator parses with). Only long numbers or exponents can be; check those alone.
  if (exponent || pos_ - start > 300) {
    std::string copy(text_.substr(start, pos_ - start));
    if (std::isinf(std::strtod(copy.c_str(), nullptr))) return fail("number out of range");
  }
  return true;
}

bool JsonScanner::literal(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word) return fail("bad literal");
  pos_ += word.size();
  return true;
}

bool JsonScanner::boolean(bool& out) {
  just_opened_ = false;
  char c = peek();
  if (c == 't' && literal("true")) return out = true, true;
  if (c == 'f' && literal("false")) return out = false, true;
  return ok() ? fail("expected a boolean") : false;
}

bool JsonScanner::value(std::string* out) {
  just_opened_ = false;
  return value_at(out);
}

bool JsonScanner::value_at(std::string* out) {
  // One loop over the whole value with an explicit stack of open containers: no call
  // per token (this is the hot loop of watch decoding).
  char c = peek();
  const size_t start = pos_;
  const size_t ws_before = ws_skipped_;
  if (c == '\0') return ok() ? fail("unexpected end") : false;
  // Open containers: no depth limit (nlohmann::json has none either); short of 16
  // levels the string needs no allocation.
  std::string stack;
  const size_t n = text_.size();
  auto is_ws = [](char ch) { return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t'; };
  auto ws = [&] {
    size_t from = pos_;
    while (pos_ < n && is_ws(text_[pos_])) ++pos_;
    ws_skipped_ += pos_ - from;
  };
  auto at = [&]() -> char { return pos_ < n ? text_[pos_] : '\0'; };
  for (;;) {
    // A value starts at pos_ (whitespace skipped).
    c = at();
    bool opened = false;
    switch (c) {
      case '{':
      case '[':
        ++pos_;
        ws();
        if (at() == (c == '{' ? '}' : ']')) {
          ++pos_;  // empty container: a complete value
        } else {
          stack.push_back(c);
          opened = true;
        }
        break;
      case '"': {
        std::string_view raw;
        if (!string(raw)) return false;
        break;
      }
      case 't':
        if (!literal("true")) return false;
        break;
      case 'f':
        if (!literal("false")) return false;
        break;
      case 'n':
        if (!literal("null")) return false;
        break;
      case '\0':
        return fail("unexpected end");
      default:
        if (c != '-' && (c < '0' || c > '9')) return fail("unexpected character");
        if (!number()) return false;
    }
    if (opened && c == '[') continue;  // the first element follows
    bool need_key = opened;            // '{' opened: the first key follows
    // After a value: close containers, or a ',' and the next element or key.
    while (!need_key) {
      if (stack.empty()) goto done;
      ws();
      char top = stack.back();
      char ch = at();
      if (ch == ',') {
        ++pos_;
        ws();
        if (top == '{') need_key = true;
        break;
      }
      if (ch != (top == '{' ? '}' : ']')) return fail(top == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
      ++pos_;
      stack.pop_back();
    }
    if (need_key) {
      ws();
      std::string_view key;
      if (at() != '"') return fail("expected a string");
      if (!string(key)) return false;
      ws();
      if (at() != ':') return fail("expected ':'");
      ++pos_;
    }
    ws();
  }
done:
  if (out) {
    // Copy verbatim if no whitespace was skipped inside, else re-emit compactly (rare:
    // API servers send compact JSON).
    if (ws_skipped_ == ws_before) out->append(text_.data() + start, pos_ - start);
    else append_compact(*out, text_.substr(start, pos_ - start));
  }
  return true;
}

}  // namespace dgd::kube
