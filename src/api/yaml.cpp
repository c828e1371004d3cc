// YAML ⇄ JSON (see include/dgd/api/yaml.h for the contract).
#include "dgd/api/yaml.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>

namespace dgd::api {
namespace {

// Limits against hostile input: alias expansion ("billion laughs") and deep nesting.
constexpr size_t kMaxNodes = 250'000;  // per document; a recipe DGD is ~300 nodes
constexpr int kMaxDepth = 256;

std::string where(const YAML::Mark& m) {
  if (m.is_null()) return "";
  return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1) + ": ";
}

bool isOneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options) {
    if (s == o) return true;
  }
  return false;
}

bool isNullWord(std::string_view s) { return isOneOf(s, {"", "~", "null", "Null", "NULL"}); }

// YAML 1.1 booleans, as sigs.k8s.io/yaml (go-yaml v2) resolves them.
std::optional<bool> boolWord(std::string_view s) {
  if (isOneOf(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) return true;
  if (isOneOf(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) return false;
  return std::nullopt;
}

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?  (hand-written: std::regex recurses
// per character and overflows the stack on long hostile scalars).
bool looksLikeFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t intDigits = digits();
  size_t fracDigits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fracDigits = digits();
  }
  if (intDigits == 0 && fracDigits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// Plain scalar → JSON value (null, bool, integer, float or string).
nlohmann::json resolvePlain(const std::string& s) {
  if (isNullWord(s)) return nullptr;
  if (auto b = boolWord(s)) return *b;
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (allDigits(digits)) {
    errno = 0;
    if (negative) {
      long long v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == 0) return static_cast<int64_t>(v);
    } else {
      unsigned long long v = std::strtoull(std::string(digits).c_str(), nullptr, 10);
      if (errno == 0) {
        if (v <= static_cast<unsigned long long>(std::numeric_limits<int64_t>::max())) {
          return static_cast<int64_t>(v);
        }
        return static_cast<uint64_t>(v);
      }
    }
    return std::strtod(s.c_str(), nullptr);  // out of 64-bit range: a float, as in Go
  }
  if (looksLikeFloat(s)) {
    double v = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(v)) return v;
  }
  // .inf / .nan have no JSON form: keep them as strings.
  return s;
}

// Strict UTF-8 (JSON strings must be valid UTF-8, or serializing them later throws).
bool validUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    if (len == 2 && c < 0xc2) return false;  // overlong
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    }
    i += len;
  }
  return true;
}

struct Converter {
  size_t nodes = 0;

  nlohmann::json convert(const YAML::Node& node, int depth) {
    if (++nodes > kMaxNodes) throw YamlError(where(node.Mark()) + "document too large (alias expansion?)");
    if (depth > kMaxDepth) throw YamlError(where(node.Mark()) + "document nested too deeply");
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return nullptr;
      case YAML::NodeType::Scalar: {
        const std::string& s = node.Scalar();
        if (!validUtf8(s)) throw YamlError(where(node.Mark()) + "invalid UTF-8");
        if (node.Tag() == "?") return resolvePlain(s);
        if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str" || node.Tag() == "!!str") return s;
        if (node.Tag() == "tag:yaml.org,2002:int" || node.Tag() == "tag:yaml.org,2002:float" ||
            node.Tag() == "tag:yaml.org,2002:bool" || node.Tag() == "tag:yaml.org,2002:null") {
          return resolvePlain(s);
        }
        return s;  // other explicit tags: the text
      }
      case YAML::NodeType::Sequence: {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& item : node) out.push_back(convert(item, depth + 1));
        return out;
      }
      case YAML::NodeType::Map: {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& kv : node) {
          if (!kv.first.IsScalar()) {
            throw YamlError(where(kv.first.Mark()) + "mapping keys must be scalars");
          }
          const std::string& key = kv.first.Scalar();
          if (!validUtf8(key)) throw YamlError(where(kv.first.Mark()) + "invalid UTF-8");
          if (out.contains(key)) {
            throw YamlError(where(kv.first.Mark()) + "duplicate key \"" + key + "\"");
          }
          out[key] = convert(kv.second, depth + 1);
        }
        return out;
      }
    }
    return nullptr;
  }
};

// ---- emitter -------------------------------------------------------------------------

bool needsQuotes(const std::string& s) {
  if (s.empty()) return true;
  if (!resolvePlain(s).is_string()) return true;  // would read back as null / bool / number
  if (s == ".inf" || s == "-.inf" || s == "+.inf" || s == ".nan" || s == ".NaN" || s == ".Inf") return true;
  if (s.front() == ' ' || s.back() == ' ') return true;
  static const std::string kIndicators = "-?:,[]{}#&*!|>'\"%@`";
  if (kIndicators.find(s.front()) != std::string::npos) {
    // "-x" / "?x" / ":x" are plain-safe only when followed by a non-space; keep it simple.
    return true;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (c == '#' && i > 0 && s[i - 1] == ' ') return true;
    if (c == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return true;
  }
  return false;
}

bool literalBlockOk(const std::string& s) {
  if (s.find('\n') == std::string::npos) return false;
  if (s.front() == ' ' || s.front() == '\n') return false;  // needs an indentation indicator
  // At most one trailing newline ("|" or "|-").
  if (s.size() >= 2 && s[s.size() - 1] == '\n' && s[s.size() - 2] == '\n') return false;
  for (unsigned char c : s) {
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return false;
  }
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == ' ' && s[i + 1] == '\n') return false;  // trailing spaces would be invisible
  }
  return true;
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

void emitScalar(std::string& out, const nlohmann::json& v, int indent) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (literalBlockOk(s)) {
      out += s.back() == '\n' ? "|\n" : "|-\n";
      std::string pad(static_cast<size_t>(indent), ' ');
      size_t start = 0;
      while (start < s.size()) {
        size_t nl = s.find('\n', start);
        if (nl == std::string::npos) nl = s.size();
        if (nl > start) out += pad + s.substr(start, nl - start);
        out += "\n";
        start = nl + 1;
      }
      return;
    }
    out += needsQuotes(s) ? quoted(s) : s;
    out += "\n";
    return;
  }
  out += v.dump();  // null, bool, number: JSON spelling is YAML spelling
  out += "\n";
}

bool isEmptyCollection(const nlohmann::json& v) { return (v.is_object() || v.is_array()) && v.empty(); }

void emit(std::string& out, const nlohmann::json& v, int indent);

void emitKey(std::string& out, const std::string& key) {
  out += needsQuotes(key) ? quoted(key) : key;
  out += ":";
}

void emitObject(std::string& out, const nlohmann::json& v, int indent, bool firstInline) {
  bool first = true;
  std::string pad(static_cast<size_t>(indent), ' ');
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!(first && firstInline)) out += pad;
    first = false;
    emitKey(out, it.key());
    const auto& child = it.value();
    if (isEmptyCollection(child)) {
      out += child.is_object() ? " {}\n" : " []\n";
    } else if (child.is_object()) {
      out += "\n";
      emitObject(out, child, indent + 2, false);
    } else if (child.is_array()) {
      out += "\n";
      emit(out, child, indent);  // block sequences sit at the key's indentation
    } else {
      out += " ";
      emitScalar(out, child, indent + 2);
    }
  }
}

void emitArray(std::string& out, const nlohmann::json& v, int indent) {
  std::string pad(static_cast<size_t>(indent), ' ');
  for (const auto& item : v) {
    out += pad + "-";
    if (isEmptyCollection(item)) {
      out += item.is_object() ? " {}\n" : " []\n";
    } else if (item.is_object()) {
      out += " ";
      emitObject(out, item, indent + 2, true);
    } else if (item.is_array()) {
      out += "\n";
      emitArray(out, item, indent + 2);
    } else {
      out += " ";
      emitScalar(out, item, indent + 2);
    }
  }
}

void emit(std::string& out, const nlohmann::json& v, int indent) {
  if (isEmptyCollection(v)) {
    out += std::string(static_cast<size_t>(indent), ' ') + (v.is_object() ? "{}\n" : "[]\n");
  } else if (v.is_object()) {
    emitObject(out, v, indent, false);
  } else if (v.is_array()) {
    emitArray(out, v, indent);
  } else {
    out += std::string(static_cast<size_t>(indent), ' ');
    emitScalar(out, v, indent + 2);
  }
}

// yaml-cpp 0.7's LoadAll loops forever, allocating, when a document cannot consume the
// token it starts at (e.g. text starting with ", a: b"): every round yields another empty
// document at the same position (found by tests/fuzz/fuzz_dgd). This pass walks the
// documents with a handler that only records where each starts, and fails on the first
// one that starts where the previous one did, before LoadAll sees the text.
class DocumentProgress : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  const YAML::Mark& start() const { return start_; }

 private:
  YAML::Mark start_;
};

void checkDocumentsAdvance(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentProgress progress;
  int previous = -1;
  while (parser.HandleNextDocument(progress)) {
    if (progress.start().pos == previous) throw YamlError(where(progress.start()) + "unexpected character");
    previous = progress.start().pos;
  }
}

}  // namespace

std::vector<nlohmann::json> yamlToJsonDocuments(std::string_view text) {
  std::vector<YAML::Node> docs;
  try {
    checkDocumentsAdvance(std::string(text));
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    throw YamlError(where(e.mark) + e.msg);
  } catch (const std::exception& e) {
    throw YamlError(std::string("YAML: ") + e.what());
  }
  std::vector<nlohmann::json> out;
  for (const auto& d : docs) {
    if (!d.IsDefined() || d.IsNull()) continue;
    Converter conv;  // the size limit is per document
    try {
      out.push_back(conv.convert(d, 0));
    } catch (const YamlError&) {
      throw;
    } catch (const YAML::Exception& e) {
      throw YamlError(where(e.mark) + e.msg);
    }
  }
  return out;
}

nlohmann::json yamlToJson(std::string_view text) {
  auto docs = yamlToJsonDocuments(text);
  if (docs.empty()) return nullptr;
  if (docs.size() > 1) {
    throw YamlError("expected one YAML document, found " + std::to_string(docs.size()));
  }
  return std::move(docs.front());
}

std::string jsonToYaml(const nlohmann::json& value) {
  std::string out;
  emit(out, value, 0);
  return out;
}

}  // namespace dgd::api
