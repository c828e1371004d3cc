// YAML ⇄ JSON (see include/dgd/api/yaml.h for the contract).
#include "dgd/api/yaml.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "api/yaml_scalar.h"

namespace dgd::api {
namespace {

using namespace yaml_detail;

std::string where(const YAML::Mark& m) {
  if (m.is_null()) return "";
  return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1) + ": ";
}

// yaml-cpp's parse events straight into JSON values, one pass, no YAML::Node tree.
// Aliases are expanded by copying the anchored value; the node limit counts every copy,
// so an alias bomb is refused, not expanded.
class JsonBuilder : public YAML::EventHandler {
 public:
  explicit JsonBuilder(std::vector<nlohmann::json>& out) : out_(out) {}

  // Where the current document started (YAML::Parser walks one document per call).
  const YAML::Mark& document_start() const { return start_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    start_ = mark;
    nodes_ = 0;  // the size limit is per document
    anchors_.clear();
    stack_.clear();
    root_ = nullptr;
  }
  void OnDocumentEnd() override {
    if (!root_.is_null()) out_.push_back(std::move(root_));
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { add(nullptr, mark, anchor, std::nullopt, 1); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw YamlError(where(mark) + "alias to an anchor whose node is not complete");
    add(it->second.value, mark, YAML::NullAnchor, it->second.scalar, it->second.nodes);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!valid_utf8(value)) throw YamlError(where(mark) + "invalid UTF-8");
    add(resolve(tag, value), mark, anchor, value, 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(nlohmann::json::array(), mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(nlohmann::json::object(), mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    nlohmann::json value;
    YAML::anchor_t anchor;
    size_t nodes_before;             // the count when it opened: its size is the difference
    std::optional<std::string> key;  // a mapping's key waiting for its value
  };
  struct Anchored {
    nlohmann::json value;
    std::optional<std::string> scalar;  // the text, when the anchored node is a scalar
    size_t nodes;
  };

  static nlohmann::json resolve(const std::string& tag, const std::string& value) {
    if (tag == "?") return resolve_plain(value);
    if (tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str") return value;
    if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" || tag == "tag:yaml.org,2002:bool" ||
        tag == "tag:yaml.org,2002:null") {
      return resolve_plain(value);
    }
    return value;  // other explicit tags: the text
  }

  bool expecting_key() const { return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().key; }

  // Counts a value node (with every node an alias copies) against the document's limits.
  void count(const YAML::Mark& mark, size_t nodes) {
    nodes_ += nodes;
    if (nodes_ > kMaxNodes) throw YamlError(where(mark) + "document too large (alias expansion?)");
    if (static_cast<int>(stack_.size()) > kMaxDepth) throw YamlError(where(mark) + "document nested too deeply");
  }

  void open(nlohmann::json empty, const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (expecting_key()) throw YamlError(where(mark) + "mapping keys must be scalars");
    count(mark, 1);
    stack_.push_back(Open{std::move(empty), anchor, nodes_ - 1, std::nullopt});
  }

  void close() {
    Open done = std::move(stack_.back());
    stack_.pop_back();
    if (done.anchor != YAML::NullAnchor) anchors_[done.anchor] = Anchored{done.value, std::nullopt, nodes_ - done.nodes_before};
    place(std::move(done.value));
  }

  // A complete scalar, null or alias: a mapping's key, or a value. Limits are checked
  // before an alias's value is copied.
  void add(const nlohmann::json& value, const YAML::Mark& mark, YAML::anchor_t anchor,
           const std::optional<std::string>& scalar, size_t nodes) {
    if (expecting_key()) {
      if (!scalar) throw YamlError(where(mark) + "mapping keys must be scalars");
      if (stack_.back().value.contains(*scalar)) throw YamlError(where(mark) + "duplicate key \"" + *scalar + "\"");
      if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{value, scalar, 1};
      stack_.back().key = *scalar;
      return;
    }
    count(mark, nodes);
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{value, scalar, nodes};
    place(value);
  }

  void place(nlohmann::json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Open& parent = stack_.back();
    if (parent.value.is_array()) {
      parent.value.push_back(std::move(value));
    } else {
      parent.value[*parent.key] = std::move(value);
      parent.key.reset();
    }
  }

  std::vector<nlohmann::json>& out_;
  YAML::Mark start_;
  size_t nodes_ = 0;
  std::map<YAML::anchor_t, Anchored> anchors_;
  std::vector<Open> stack_;
  nlohmann::json root_;
};

// ---- emitter -------------------------------------------------------------------------

// Characters that decide a plain scalar's fate, by class: 1 control (always quoted),
// 2 '#' and 3 ':' (quoted in some positions), 0 everything else.
constexpr std::array<unsigned char, 256> kCharClass = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 1;
  t[0x7f] = 1;
  t['#'] = 2;
  t[':'] = 3;
  return t;
}();

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Whether any of the 8 bytes of `w` is a control character (< 0x20 or 0x7f), '#' or ':'
// (exact about "any", SWAR style: hasless / haszero of the bit-twiddling hacks).
bool any_special_byte(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  return ((w - 0x20 * kOnes) & ~w & kHigh) | has_zero(w ^ (0x7f * kOnes)) | has_zero(w ^ ('#' * kOnes)) |
         has_zero(w ^ (':' * kOnes));
}

bool needs_quotes(std::string_view s) {
  if (s.empty()) return true;
  if (s.front() == ' ' || s.back() == ' ') return true;
  // "-x" / "?x" / ":x" are plain-safe only when followed by a non-space; keep it simple.
  static constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";
  if (!is_ascii_letter(s.front()) && kIndicators.find(s.front()) != std::string_view::npos) return true;
  // Eight bytes at a time up to the first word holding a byte that matters, then byte by
  // byte from that word on.
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (any_special_byte(w)) break;
  }
  for (; i < s.size(); ++i) {
    switch (kCharClass[static_cast<unsigned char>(s[i])]) {
      case 0: continue;
      case 1: return true;
      case 2:
        if (i > 0 && s[i - 1] == ' ') return true;
        continue;
      default:  // ':'
        if (i + 1 == s.size() || s[i + 1] == ' ') return true;
    }
  }
  // A word starting with a letter is never a number, and a null or boolean word only when
  // it has at most 5 characters and starts with one of their letters (plainIsString
  // decides those).
  if (is_ascii_letter(s.front())) {
    static constexpr std::string_view kWordStarts = "nNtTyYoOfF";
    if (s.size() > 5 || kWordStarts.find(s.front()) == std::string_view::npos) return false;
  }
  if (s == ".inf" || s == "-.inf" || s == "+.inf" || s == ".nan" || s == ".NaN" || s == ".Inf") return true;
  return !plain_is_string(s);  // would read back as null / bool / number
}

// Whether any of the 8 bytes of `w` is a control character (< 0x20, newline and tab
// included) or DEL (exact about "any", as anySpecialByte).
bool any_control_byte(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const uint64_t del = w ^ (0x7f * kOnes);
  return (((w - 0x20 * kOnes) & ~w) | ((del - kOnes) & ~del)) & kHigh;
}

bool literal_block_ok(const std::string& s) {
  if (s.find('\n') == std::string::npos) return false;
  if (s.front() == ' ' || s.front() == '\n') return false;  // needs an indentation indicator
  // At most one trailing newline ("|" or "|-").
  if (s.size() >= 2 && s[s.size() - 1] == '\n' && s[s.size() - 2] == '\n') return false;
  // No control character but newline and tab, no DEL, and no trailing spaces on a line
  // (they would be invisible); whole words without a control byte are skipped.
  size_t i = 0;
  while (i < s.size()) {
    if (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (!any_control_byte(w)) {
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      if (i > 0 && s[i - 1] == ' ') return false;
    } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
      return false;
    }
    ++i;
  }
  return true;
}

// A JSON string literal, as nlohmann::json(s).dump() spells it (YAML reads JSON strings
// as double-quoted scalars).
void append_quoted(std::string& out, const std::string& s) {
  if (!valid_utf8(s)) {
    out += nlohmann::json(s).dump();  // throws, as serializing the value would
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  // Runs of characters that need no escape are appended whole.
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s, run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
    }
  }
  out.append(s, run, std::string::npos);
  out += '"';
}

void append_string(std::string& out, const std::string& s) {
  if (needs_quotes(s)) {
    append_quoted(out, s);
  } else {
    out += s;
  }
}

void emit_scalar(std::string& out, const nlohmann::json& v, int indent) {
  switch (v.type()) {
    case nlohmann::json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (literal_block_ok(s)) {
        out += s.back() == '\n' ? "|\n" : "|-\n";
        size_t start = 0;
        while (start < s.size()) {
          size_t nl = s.find('\n', start);
          if (nl == std::string::npos) nl = s.size();
          if (nl > start) {
            out.append(static_cast<size_t>(indent), ' ');
            out.append(s, start, nl - start);
          }
          out += '\n';
          start = nl + 1;
        }
        return;
      }
      append_string(out, s);
      break;
    }
    case nlohmann::json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      break;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: {
      char buf[24];
      auto r = v.is_number_unsigned() ? std::to_chars(buf, buf + sizeof buf, v.get<uint64_t>())
                                      : std::to_chars(buf, buf + sizeof buf, v.get<int64_t>());
      out.append(buf, r.ptr);
      break;
    }
    default:
      out += v.dump();  // null, float: JSON spelling is YAML spelling
  }
  out += '\n';
}

bool is_empty_collection(const nlohmann::json& v) { return (v.is_object() || v.is_array()) && v.empty(); }

void emit(std::string& out, const nlohmann::json& v, int indent);

void emit_object(std::string& out, const nlohmann::json& v, int indent, bool first_inline) {
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!(first && first_inline)) out.append(static_cast<size_t>(indent), ' ');
    first = false;
    append_string(out, it.key());
    out += ':';
    const auto& child = it.value();
    if (is_empty_collection(child)) {
      out += child.is_object() ? " {}\n" : " []\n";
    } else if (child.is_object()) {
      out += '\n';
      emit_object(out, child, indent + 2, false);
    } else if (child.is_array()) {
      out += '\n';
      emit(out, child, indent);  // block sequences sit at the key's indentation
    } else {
      out += ' ';
      emit_scalar(out, child, indent + 2);
    }
  }
}

void emit_array(std::string& out, const nlohmann::json& v, int indent) {
  for (const auto& item : v) {
    out.append(static_cast<size_t>(indent), ' ');
    out += '-';
    if (is_empty_collection(item)) {
      out += item.is_object() ? " {}\n" : " []\n";
    } else if (item.is_object()) {
      out += ' ';
      emit_object(out, item, indent + 2, true);
    } else if (item.is_array()) {
      out += '\n';
      emit_array(out, item, indent + 2);
    } else {
      out += ' ';
      emit_scalar(out, item, indent + 2);
    }
  }
}

void emit(std::string& out, const nlohmann::json& v, int indent) {
  if (is_empty_collection(v)) {
    out.append(static_cast<size_t>(indent), ' ');
    out += v.is_object() ? "{}\n" : "[]\n";
  } else if (v.is_object()) {
    emit_object(out, v, indent, false);
  } else if (v.is_array()) {
    emit_array(out, v, indent);
  } else {
    out.append(static_cast<size_t>(indent), ' ');
    emit_scalar(out, v, indent + 2);
  }
}

}  // namespace

std::vector<nlohmann::json> yaml_to_json_documents(std::string_view text) {
  std::vector<nlohmann::json> out;
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    JsonBuilder builder(out);
    // yaml-cpp 0.7 yields empty document after empty document at the same position,
    // forever, when a document cannot consume the token it starts at (text starting with
    // ", a: b", a fuzz_dgd regression input): a document that starts where the previous
    // one did is an error.
    int previous = -1;
    while (parser.HandleNextDocument(builder)) {
      const YAML::Mark& start = builder.document_start();
      if (start.pos == previous) throw YamlError(where(start) + "unexpected character");
      previous = start.pos;
    }
  } catch (const YamlError&) {
    throw;
  } catch (const YAML::Exception& e) {
    throw YamlError(where(e.mark) + e.msg);
  } catch (const std::exception& e) {
    throw YamlError(std::string("YAML: ") + e.what());
  }
  return out;
}

nlohmann::json yaml_to_json(std::string_view text) {
  auto docs = yaml_to_json_documents(text);
  if (docs.empty()) return nullptr;
  if (docs.size() > 1) {
    throw YamlError("expected one YAML document, found " + std::to_string(docs.size()));
  }
  return std::move(docs.front());
}

std::string json_to_yaml(const nlohmann::json& value) {
  std::string out;
  out.reserve(4096);
  emit(out, value, 0);
  return out;
}

void append_yaml(std::string& out, const nlohmann::json& value) { emit(out, value, 0); }

}  // namespace dgd::api
