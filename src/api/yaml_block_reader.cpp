// The fast block-style YAML reader (see yaml_block_reader.h for the subset). A recursive
// descent over lines; every construct outside the subset throws Unsupported, which
// readBlockYaml turns into nullopt.
#include "api/yaml_block_reader.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "api/yaml_scalar.h"

namespace dgd::api::yaml_detail {
namespace {

using nlohmann::json;

struct Unsupported {};
[[noreturn]] void unsupported() { throw Unsupported{}; }

constexpr size_t kNone = std::string_view::npos;

// Bytes the subset refuses anywhere: control characters (tab and CR included: yaml-cpp
// gives them meanings this reader does not model), DEL, C1 controls (NEL is a YAML 1.1
// line break), U+2028 / U+2029 and the byte-order mark. The text must be valid UTF-8.
// Whether some byte of the 8 in `w` is not printable ASCII (< 0x20, newline included, or
// >= 0x7f): exact about "any" (SWAR: hasless, and a carry into the high bit for 0x7f).
bool anyNonPrintable(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  return (((w - 0x20 * kOnes) & ~w) | w | (w + kOnes)) & kHigh;
}

void checkBytes(std::string_view t) {
  bool ascii = true;
  for (size_t i = 0; i < t.size(); ++i) {
    // Whole words of printable ASCII at once (most of a manifest between its newlines).
    while (i + 8 <= t.size()) {
      uint64_t w;
      std::memcpy(&w, t.data() + i, 8);
      if (anyNonPrintable(w)) break;
      i += 8;
    }
    if (i >= t.size()) break;
    const auto c = static_cast<unsigned char>(t[i]);
    if (c >= 0x20 && c < 0x7f) continue;
    if (c == '\n') continue;
    if (c < 0x80) unsupported();
    ascii = false;
    const auto c1 = i + 1 < t.size() ? static_cast<unsigned char>(t[i + 1]) : 0;
    const auto c2 = i + 2 < t.size() ? static_cast<unsigned char>(t[i + 2]) : 0;
    if (c == 0xc2 && c1 < 0xa0) unsupported();
    if (c == 0xe2 && c1 == 0x80 && (c2 == 0xa8 || c2 == 0xa9)) unsupported();
    if (c == 0xef && c1 == 0xbb && c2 == 0xbf) unsupported();
  }
  if (!ascii && !validUtf8(t)) unsupported();
}

// Characters that cannot start a plain scalar or a plain key.
bool isIndicator(char c) {
  switch (c) {
    case '-': case '?': case ':': case ',': case '[': case ']': case '{': case '}': case '#':
    case '&': case '*': case '!': case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
      return true;
    default:
      return false;
  }
}

bool isFlowIndicator(char c) { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'; }

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class BlockReader {
 public:
  explicit BlockReader(std::string_view text) {
    checkBytes(text);
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == kNone) nl = text.size();
      addLine(text.substr(start, nl - start));
      start = nl + 1;
    }
  }

  std::vector<json> documents() {
    std::vector<json> docs;
    size_t i = nextContent(0);
    while (i < lines_.size()) {
      if (isDocumentStart(i)) {
        if (!restIsBlank(i, 3)) unsupported();  // "--- value"
        i = nextContent(i + 1);
        continue;
      }
      nodes_ = 0;
      const int indent = lines_[i].indent;
      json root;
      if (isSequenceEntry(i, static_cast<size_t>(indent))) {
        root = sequence(i, static_cast<size_t>(indent), 0);
      } else if (isKeyLine(i, static_cast<size_t>(indent))) {
        root = mapping(i, static_cast<size_t>(indent), 0);
      } else {
        const char c = lines_[i].text[static_cast<size_t>(indent)];
        if (c != '[' && c != '{') unsupported();  // a scalar document
        size_t pos = static_cast<size_t>(indent);
        root = flow(i, pos, 0);
        if (!restIsBlank(i, pos)) unsupported();
        next_ = i + 1;
      }
      i = nextContent(next_);
      if (i < lines_.size() && !isDocumentStart(i)) unsupported();  // content after the root
      docs.push_back(std::move(root));
    }
    return docs;
  }

 private:
  struct Line {
    std::string_view text;
    int indent;  // leading spaces
    bool blank;  // empty, spaces only, or a comment
  };
  std::vector<Line> lines_;
  size_t next_ = 0;   // the first line the last parsed node did not consume
  size_t nodes_ = 0;  // nodes of the current document (limit as the yaml-cpp path)

  void addLine(std::string_view text) {
    size_t n = text.find_first_not_of(' ');
    const bool blank = n == kNone || text[n] == '#';
    lines_.push_back({text, n == kNone ? static_cast<int>(text.size()) : static_cast<int>(n), blank});
    if (text.size() >= 3 && text.substr(0, 3) == "..." && (text.size() == 3 || text[3] == ' ')) unsupported();
  }

  void count(int depth) {
    if (++nodes_ >= kMaxNodes || depth >= kMaxDepth) unsupported();
  }

  // The first non-blank line at or after i (lines_.size() when none).
  size_t nextContent(size_t i) const {
    while (i < lines_.size() && lines_[i].blank) ++i;
    return i;
  }

  bool isDocumentStart(size_t i) const {
    const auto t = lines_[i].text;
    return t.size() >= 3 && t.substr(0, 3) == "---" && (t.size() == 3 || t[3] == ' ');
  }

  // Nothing but spaces and a comment from `pos` on (a comment needs a space before it).
  bool restIsBlank(size_t i, size_t pos) const {
    const auto t = lines_[i].text;
    size_t p = pos;
    while (p < t.size() && t[p] == ' ') ++p;
    if (p == t.size()) return true;
    return t[p] == '#' && (p > pos || p == 0 || t[p - 1] == ' ');
  }

  bool isSequenceEntry(size_t i, size_t col) const {
    const auto t = lines_[i].text;
    return col < t.size() && t[col] == '-' && (col + 1 == t.size() || t[col + 1] == ' ');
  }

  // A block key at (i, col): `plain key:` or `"quoted":` / `'quoted':`, followed by a space
  // or the end of the line. On success `key` and `after` (past the colon) are set.
  bool keyAt(size_t i, size_t col, std::string& key, size_t& after) const {
    const auto t = lines_[i].text;
    if (col >= t.size()) return false;
    const char c = t[col];
    if (c == '"' || c == '\'') {
      size_t pos = col;
      std::string k = c == '"' ? doubleQuoted(t, pos) : singleQuoted(t, pos);
      if (pos >= t.size() || t[pos] != ':' || (pos + 1 < t.size() && t[pos + 1] != ' ')) return false;
      key = std::move(k);
      after = pos + 1;
      return true;
    }
    if (isIndicator(c)) return false;
    for (size_t p = col; p < t.size(); ++p) {
      const char ch = t[p];
      if (ch == '#' && t[p - 1] == ' ') return false;  // a comment before any colon
      if (ch == ':' && (p + 1 == t.size() || t[p + 1] == ' ')) {
        if (t[p - 1] == ' ') unsupported();  // "key :"
        key.assign(t.substr(col, p - col));
        after = p + 1;
        return true;
      }
      if (ch == '"' || ch == '\'' || isFlowIndicator(ch)) return false;
    }
    return false;
  }

  bool isKeyLine(size_t i, size_t col) const {
    std::string key;
    size_t after = 0;
    return keyAt(i, col, key, after);
  }

  // ---- block collections ------------------------------------------------------------

  // A block mapping whose first key is at (i, col); its keys sit at column col.
  json mapping(size_t i, size_t col, int depth) {
    count(depth);
    json out = json::object();
    const int indent = static_cast<int>(col);
    while (true) {
      std::string key;
      size_t after = 0;
      if (!keyAt(i, col, key, after)) unsupported();
      // Keys a plain null word would make null, which the yaml-cpp path refuses.
      const bool quotedKey = lines_[i].text[col] == '"' || lines_[i].text[col] == '\'';
      if (!quotedKey && key.size() <= 4 && plainIsNull(key)) unsupported();
      if (key.size() > 1024) unsupported();  // YAML's limit for implicit keys
      auto [it, inserted] = out.emplace(std::move(key), nullptr);
      if (!inserted) unsupported();  // duplicate key: the yaml-cpp path words the error
      if (restIsBlank(i, after)) {
        it.value() = blockValue(i, indent, depth + 1, true);
      } else {
        const auto t = lines_[i].text;
        while (after < t.size() && t[after] == ' ') ++after;
        it.value() = inlineValue(i, after, indent, depth + 1);
      }
      const size_t k = nextContent(next_);
      if (k >= lines_.size() || isDocumentStart(k) || lines_[k].indent < indent) break;
      if (lines_[k].indent > indent) unsupported();
      i = k;
    }
    return out;
  }

  // A block sequence whose first "-" is at (i, col); its entries sit at column col.
  json sequence(size_t i, size_t col, int depth) {
    count(depth);
    json out = json::array();
    const int indent = static_cast<int>(col);
    while (true) {
      if (!isSequenceEntry(i, col)) unsupported();
      const auto t = lines_[i].text;
      size_t p = col + 1;
      while (p < t.size() && t[p] == ' ') ++p;
      if (restIsBlank(i, col + 1)) {
        out.push_back(blockValue(i, indent, depth + 1, false));
      } else if (isSequenceEntry(i, p)) {
        out.push_back(sequence(i, p, depth + 1));
      } else if (isKeyLine(i, p)) {
        out.push_back(mapping(i, p, depth + 1));
      } else {
        out.push_back(inlineValue(i, p, indent, depth + 1));
      }
      const size_t k = nextContent(next_);
      if (k >= lines_.size() || isDocumentStart(k) || lines_[k].indent < indent) break;
      if (lines_[k].indent > indent) unsupported();
      if (!isSequenceEntry(k, col)) break;  // the next key of a mapping at this indentation
      i = k;
    }
    return out;
  }

  // The value of a key or "-" with nothing after it on line i: the more indented block
  // that follows, a sequence at the key's own indentation, or null.
  json blockValue(size_t i, int indent, int depth, bool ofKey) {
    const size_t k = nextContent(i + 1);
    next_ = i + 1;
    if (k >= lines_.size() || isDocumentStart(k)) return nullptr;
    const int ki = lines_[k].indent;
    const auto col = static_cast<size_t>(ki);
    if (ki > indent) {
      if (isSequenceEntry(k, col)) return sequence(k, col, depth);
      if (isKeyLine(k, col)) return mapping(k, col, depth);
      const char c = lines_[k].text[col];
      if (c == '|') unsupported();
      json v = inlineValue(k, col, indent, depth);
      return v;
    }
    if (ofKey && ki == indent && isSequenceEntry(k, col)) return sequence(k, col, depth);
    count(depth);
    return nullptr;
  }

  // A scalar, literal block or one-line flow collection starting at (i, pos), the value
  // of a key or entry of the collection at `indent`. Nothing more indented may follow (a
  // plain scalar continued on the next line is outside the subset).
  json inlineValue(size_t i, size_t pos, int indent, int depth) {
    count(depth);
    const auto t = lines_[i].text;
    const char c = t[pos];
    json v;
    next_ = i + 1;
    if (c == '"' || c == '\'') {
      size_t p = pos;
      v = c == '"' ? doubleQuoted(t, p) : singleQuoted(t, p);
      if (!restIsBlank(i, p) || (p < t.size() && t[p] != ' ')) unsupported();
    } else if (c == '[' || c == '{') {
      size_t p = pos;
      v = flow(i, p, depth);
      if (!restIsBlank(i, p) || (p < t.size() && t[p] != ' ')) unsupported();
    } else if (c == '|') {
      v = literal(i, pos, indent);
    } else {
      // A plain scalar may start with '-' followed by a non-space ("-1", "--port"), but
      // not with "---".
      if (isIndicator(c) && !(c == '-' && pos + 1 < t.size() && t[pos + 1] != ' ' && t.substr(pos, 3) != "---")) {
        unsupported();
      }
      size_t end = t.size();
      for (size_t p = pos; p < t.size(); ++p) {
        const char ch = t[p];
        if (ch == '#' && t[p - 1] == ' ') {
          end = p;
          break;
        }
        if (ch == ':' && (p + 1 == t.size() || t[p + 1] == ' ')) unsupported();  // "a: b: c"
        if (isFlowIndicator(ch) && ch != ',') unsupported();
      }
      while (end > pos && t[end - 1] == ' ') --end;
      v = resolvePlain(std::string(t.substr(pos, end - pos)));
    }
    const size_t k = nextContent(next_);
    if (k < lines_.size() && !isDocumentStart(k) && lines_[k].indent > indent) unsupported();
    return v;
  }

  // `|` or `|-` at (i, pos); the content lines follow, indented deeper than `indent`.
  std::string literal(size_t i, size_t pos, int indent) {
    const auto t = lines_[i].text;
    bool strip = false;
    size_t p = pos + 1;
    if (p < t.size() && t[p] == '-') {
      strip = true;
      ++p;
    }
    if (p < t.size() && t[p] != ' ') unsupported();  // "|+", "|2", ...
    if (!restIsBlank(i, p)) unsupported();
    size_t k = i + 1;
    if (k >= lines_.size() || lines_[k].text.find_first_not_of(' ') == kNone) unsupported();
    const int contentIndent = lines_[k].indent;
    if (contentIndent <= indent) unsupported();  // an empty literal
    const auto ci = static_cast<size_t>(contentIndent);
    std::string out;
    for (; k < lines_.size(); ++k) {
      const auto line = lines_[k].text;
      if (line.find_first_not_of(' ') == kNone) {
        if (line.size() > ci) unsupported();  // spaces beyond the indentation
        out += '\n';
        continue;
      }
      if (lines_[k].indent < contentIndent) break;
      out.append(line.substr(ci));
      out += '\n';
    }
    next_ = k;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    if (!strip) out += '\n';
    return out;
  }

  // ---- scalars and flow collections on one line -------------------------------------

  // "..." starting at t[pos]; pos ends past the closing quote.
  static std::string doubleQuoted(std::string_view t, size_t& pos) {
    std::string out;
    size_t p = pos + 1;
    while (true) {
      if (p >= t.size()) unsupported();  // continued on the next line
      const char c = t[p];
      if (c == '"') break;
      if (c != '\\') {
        out += c;
        ++p;
        continue;
      }
      if (++p >= t.size()) unsupported();
      switch (t[p]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'x':
        case 'u': {
          const size_t digits = t[p] == 'x' ? 2 : 4;
          if (p + digits >= t.size()) unsupported();
          uint32_t cp = 0;
          for (size_t k = 1; k <= digits; ++k) {
            const int h = hexValue(t[p + k]);
            if (h < 0) unsupported();
            cp = cp * 16 + static_cast<uint32_t>(h);
          }
          if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff)) unsupported();
          appendUtf8(out, cp);
          p += digits;
          break;
        }
        default:
          unsupported();
      }
      ++p;
    }
    pos = p + 1;
    return out;
  }

  // '...' starting at t[pos] ('' is a quote); pos ends past the closing quote.
  static std::string singleQuoted(std::string_view t, size_t& pos) {
    std::string out;
    size_t p = pos + 1;
    while (true) {
      if (p >= t.size()) unsupported();
      if (t[p] == '\'') {
        if (p + 1 < t.size() && t[p + 1] == '\'') {
          out += '\'';
          p += 2;
          continue;
        }
        break;
      }
      out += t[p++];
    }
    pos = p + 1;
    return out;
  }

  static void skipSpaces(std::string_view t, size_t& p) {
    while (p < t.size() && t[p] == ' ') ++p;
  }

  // A plain scalar inside a flow collection: up to , ] } or ": ".
  static std::string flowPlain(std::string_view t, size_t& p) {
    const size_t start = p;
    if (isIndicator(t[p]) && !(t[p] == '-' && p + 1 < t.size() && t[p + 1] != ' ' && !isFlowIndicator(t[p + 1]))) {
      unsupported();
    }
    while (p < t.size()) {
      const char c = t[p];
      if (c == ',' || c == ']' || c == '}') break;
      if (c == '[' || c == '{') unsupported();
      if (c == '#' && t[p - 1] == ' ') unsupported();
      if (c == ':' && (p + 1 == t.size() || t[p + 1] == ' ' || isFlowIndicator(t[p + 1]))) break;
      ++p;
    }
    size_t end = p;
    while (end > start && t[end - 1] == ' ') --end;
    if (end == start) unsupported();
    return std::string(t.substr(start, end - start));
  }

  json flowNode(std::string_view t, size_t& p, int depth) {
    if (p >= t.size()) unsupported();
    const char c = t[p];
    if (c == '[' || c == '{') return flowCollection(t, p, depth);
    count(depth);
    if (c == '"') return doubleQuoted(t, p);
    if (c == '\'') return singleQuoted(t, p);
    json v = resolvePlain(flowPlain(t, p));
    if (p < t.size() && t[p] == ':') unsupported();  // a single-pair mapping in a sequence
    return v;
  }

  json flowCollection(std::string_view t, size_t& p, int depth) {
    count(depth);
    const bool isMap = t[p] == '{';
    const char close = isMap ? '}' : ']';
    json out = isMap ? json::object() : json::array();
    ++p;
    skipSpaces(t, p);
    if (p < t.size() && t[p] == close) {
      ++p;
      return out;
    }
    while (true) {
      skipSpaces(t, p);
      if (p >= t.size()) unsupported();
      if (isMap) {
        std::string key;
        const char c = t[p];
        if (c == '"') key = doubleQuoted(t, p);
        else if (c == '\'') key = singleQuoted(t, p);
        else if (c == '[' || c == '{') unsupported();
        else {
          key = flowPlain(t, p);
          if (resolvePlain(key).is_null()) unsupported();
        }
        if (p + 1 >= t.size() || t[p] != ':' || t[p + 1] != ' ') unsupported();
        p += 2;
        skipSpaces(t, p);
        if (p >= t.size() || t[p] == ',' || t[p] == '}') unsupported();  // "{a: }"
        json v = flowNode(t, p, depth + 1);
        if (!out.emplace(std::move(key), std::move(v)).second) unsupported();
      } else {
        out.push_back(flowNode(t, p, depth + 1));
      }
      skipSpaces(t, p);
      if (p >= t.size()) unsupported();
      if (t[p] == close) {
        ++p;
        return out;
      }
      if (t[p] != ',') unsupported();
      ++p;
      skipSpaces(t, p);
      if (p < t.size() && t[p] == close) unsupported();  // a trailing comma
    }
  }

  json flow(size_t i, size_t& pos, int depth) { return flowCollection(lines_[i].text, pos, depth); }
};

}  // namespace

std::optional<std::vector<json>> readBlockYaml(std::string_view text) {
  try {
    return BlockReader(text).documents();
  } catch (const Unsupported&) {
    return std::nullopt;
  } catch (const std::exception&) {  // e.g. bad_alloc: let the other path try
    return std::nullopt;
  }
}

}  // namespace dgd::api::yaml_detail
