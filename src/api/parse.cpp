// Parsing and serialization of the DGD model, driven by the field lists of model_fields.h.
#include "dgd/api/parse.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "api/model_fields.h"
#include "dgd/api/yaml.h"

namespace dgd::api {
namespace {

using nlohmann::json;
using Errors = std::vector<FieldError>;

std::string join(const std::string& path, const char* name) {
  return path.empty() ? std::string(name) : path + "." + name;
}
std::string index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// ---- enum traits -----------------------------------------------------------------------

template <class E> struct EnumTraits;
template <> struct EnumTraits<BackendFramework> {
  static std::optional<BackendFramework> parse(std::string_view s) { return parse_backend_framework(s); }
  static constexpr const char* kAllowed = "vllm, sglang, trtllm";
};
template <> struct EnumTraits<ComponentType> {
  static std::optional<ComponentType> parse(std::string_view s) { return parse_component_type(s); }
  static constexpr const char* kAllowed = "frontend, worker, prefill, decode";
};
template <> struct EnumTraits<GpuProduct> {
  static std::optional<GpuProduct> parse(std::string_view s) { return parse_gpu_product(s); }
  static constexpr const char* kAllowed = "B200, GB200, H200";
};
template <> struct EnumTraits<NicSelection> {
  static std::optional<NicSelection> parse(std::string_view s) { return parse_nic_selection(s); }
  static constexpr const char* kAllowed = "sriov, pcieMap, none";
};
template <> struct EnumTraits<RouterMode> {
  static std::optional<RouterMode> parse(std::string_view s) { return parse_router_mode(s); }
  static constexpr const char* kAllowed = "kv, round-robin, random";
};

template <class T> struct IsOptional : std::false_type {};
template <class T> struct IsOptional<std::optional<T>> : std::true_type {};

// ---- reading ---------------------------------------------------------------------------

const char* type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "a list";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a number with a fraction";
    default: return "a number";
  }
}

void wrong_type(Errors& e, const std::string& path, const char* want, const json& got) {
  e.push_back({path, std::string("must be ") + want + ", got " + type_name(got)});
}

template <class S> void read_struct(const json& j, const std::string& path, S& out, Errors& e);

bool read_int(const json& j, const std::string& path, int64_t& out, Errors& e) {
  if (j.is_number_unsigned()) {
    auto u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      e.push_back({path, "integer out of range"});
      return false;
    }
    out = static_cast<int64_t>(u);
    return true;
  }
  if (j.is_number_integer()) {
    out = j.get<int64_t>();
    return true;
  }
  wrong_type(e, path, "an integer", j);
  return false;
}

void read(const json& j, const std::string& path, std::string& out, Errors& e) {
  if (j.is_string()) out = j.get<std::string>();
  else wrong_type(e, path, "a string", j);
}
void read(const json& j, const std::string& path, bool& out, Errors& e) {
  if (j.is_boolean()) out = j.get<bool>();
  else wrong_type(e, path, "a boolean (true or false)", j);
}
void read(const json& j, const std::string& path, int64_t& out, Errors& e) { read_int(j, path, out, e); }
void read(const json& j, const std::string& path, int32_t& out, Errors& e) {
  int64_t v = 0;
  if (!read_int(j, path, v, e)) return;
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    e.push_back({path, "integer out of range (must fit in 32 bits)"});
    return;
  }
  out = static_cast<int32_t>(v);
}
void read(const json& j, const std::string& path, double& out, Errors& e) {
  if (j.is_number()) out = j.get<double>();
  else wrong_type(e, path, "a number", j);
}
// Set while from_json(json&&) reads its document: raw JSON members (podTemplates are
// most of a DGD) are moved out of the document instead of copied.
thread_local bool t_move_raw = false;

// `j` as a value to keep: moved when the document being read is the reader's to consume.
json take(const json& j) { return t_move_raw ? std::move(const_cast<json&>(j)) : j; }

void read(const json& j, const std::string&, json& out, Errors&) { out = take(j); }
void read(const json& j, const std::string& path, std::map<std::string, std::string>& out, Errors& e) {
  if (!j.is_object()) return wrong_type(e, path, "a map of strings", j);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
    else wrong_type(e, path + "." + it.key(), "a string (quote it)", it.value());
  }
}

template <class E>
  requires std::is_enum_v<E>
void read(const json& j, const std::string& path, E& out, Errors& e) {
  if (!j.is_string()) return wrong_type(e, path, (std::string("one of: ") + EnumTraits<E>::kAllowed).c_str(), j);
  auto v = EnumTraits<E>::parse(j.get<std::string>());
  if (!v) {
    e.push_back({path, "unsupported value \"" + j.get<std::string>() + "\": must be one of: " + EnumTraits<E>::kAllowed});
    return;
  }
  out = *v;
}

template <class T>
  requires std::is_class_v<T> && (!std::is_same_v<T, std::string>) && (!std::is_same_v<T, json>)
void read(const json& j, const std::string& path, T& out, Errors& e) {
  read_struct(j, path, out, e);
}

template <class T> void read(const json& j, const std::string& path, std::optional<T>& out, Errors& e) {
  T value{};
  size_t before = e.size();
  read(j, path, value, e);
  // A block with errors inside is still kept (its good fields count); a scalar is not.
  if (e.size() == before || (std::is_class_v<T> && !std::is_same_v<T, std::string> && j.is_object())) {
    out = std::move(value);
  }
}

template <class T> void read(const json& j, const std::string& path, std::vector<T>& out, Errors& e) {
  if (!j.is_array()) return wrong_type(e, path, "a list", j);
  for (size_t i = 0; i < j.size(); ++i) {
    T item{};
    size_t before = e.size();
    read(j[i], index(path, i), item, e);
    if (e.size() == before || j[i].is_object()) out.push_back(std::move(item));
  }
}

struct Reader {
  const json& obj;
  const std::string& path;
  Errors& errors;
  // Field names of the struct (string literals): a handful, so a flat list beats a set.
  std::vector<std::string_view> known;
  json* extra = nullptr;

  template <class T> void operator()(const char* name, T& member) {
    known.emplace_back(name);
    auto it = obj.find(name);
    if (it == obj.end() || it->is_null()) return;  // null means absent, as in Kubernetes
    read(*it, join(path, name), member, errors);
  }
  void passthrough(json& bag) { extra = &bag; }
  void quantity(const char* name, std::optional<std::string>& member) {
    known.emplace_back(name);
    auto it = obj.find(name);
    if (it != obj.end() && (it->is_number_integer() || it->is_number_unsigned())) {
      member = it->dump();  // int-or-string: 0 means "0"
      return;
    }
    (*this)(name, member);
  }

  void finish() {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (std::find(known.begin(), known.end(), it.key()) != known.end()) continue;
      if (extra) (*extra)[it.key()] = take(it.value());
      else errors.push_back({join(path, it.key().c_str()), "unknown field"});
    }
  }
};

template <class S> void read_struct(const json& j, const std::string& path, S& out, Errors& e) {
  if (!j.is_object()) return wrong_type(e, path, "an object", j);
  Reader r{j, path, e, {}, nullptr};
  r.known.reserve(32);
  detail::describe(r, out);
  r.finish();
}

// ---- writing ---------------------------------------------------------------------------

template <class S> json write_struct(const S& s);

template <class T> json write(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return to_string(v);
  } else if constexpr (std::is_same_v<T, std::string> || std::is_arithmetic_v<T> || std::is_same_v<T, json> ||
                       std::is_same_v<T, std::map<std::string, std::string>>) {
    return json(v);
  } else {
    return write_struct(v);
  }
}

template <class T> bool present(const T& v) {
  if constexpr (IsOptional<T>::value) {
    return v.has_value();
  } else if constexpr (std::is_same_v<T, json>) {
    return !v.is_null();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return !v.empty();
  } else if constexpr (requires { v.empty(); }) {
    return !v.empty();  // vectors and maps
  } else {
    return true;  // metadata, spec: always written
  }
}

struct Writer {
  json out = json::object();
  const json* extra = nullptr;

  template <class T> void operator()(const char* name, const T& member) {
    if (!present(member)) return;
    if constexpr (IsOptional<T>::value) {
      out[name] = write(*member);
    } else if constexpr (requires { member.begin(); } && !std::is_same_v<T, std::string> &&
                         !std::is_same_v<T, json> && !std::is_same_v<T, std::map<std::string, std::string>>) {
      json list = json::array();
      for (const auto& item : member) list.push_back(write(item));
      out[name] = std::move(list);
    } else {
      out[name] = write(member);
    }
  }
  void passthrough(const json& bag) { extra = &bag; }
  void quantity(const char* name, const std::optional<std::string>& member) { (*this)(name, member); }
};

template <class S> json write_struct(const S& s) {
  Writer w;
  detail::describe(w, const_cast<S&>(s));  // Writer only reads
  if (w.extra && w.extra->is_object()) {
    for (auto it = w.extra->begin(); it != w.extra->end(); ++it) {
      if (!w.out.contains(it.key())) w.out[it.key()] = it.value();
    }
  }
  return w.out;
}

// ---- field paths -------------------------------------------------------------------------

struct PathLister {
  std::string prefix;
  std::vector<std::string>& out;

  template <class T> void operator()(const char* name, T& member) { visit(join(prefix, name), member); }
  void passthrough(json&) {}
  void quantity(const char* name, std::optional<std::string>& member) { (*this)(name, member); }

  template <class T> void visit(const std::string& p, T&) {
    if constexpr (std::is_same_v<T, json> || std::is_same_v<T, std::map<std::string, std::string>>) {
      out.push_back(p + "{}");
    } else if constexpr (std::is_class_v<T> && !std::is_same_v<T, std::string>) {
      out.push_back(p);
      T probe{};
      PathLister inner{p, out};
      detail::describe(inner, probe);
    } else {
      out.push_back(p);
    }
  }
  template <class T> void visit(const std::string& p, std::optional<T>&) {
    T probe{};
    visit(p, probe);
  }
  template <class T> void visit(const std::string& p, std::vector<T>&) {
    T probe{};
    visit(p + "[]", probe);
  }
};

}  // namespace

ParseResult from_json(const json& doc) {
  ParseResult r;
  if (!doc.is_object()) {
    r.errors.push_back({"", std::string("the document must be an object, got ") + type_name(doc)});
    return r;
  }
  r.document = true;
  read_struct(doc, "", r.dgd, r.errors);
  return r;
}

ParseResult from_json(json&& doc) {
  struct MoveRaw {
    bool previous = t_move_raw;
    MoveRaw() { t_move_raw = true; }
    ~MoveRaw() { t_move_raw = previous; }
  } moving;
  return from_json(static_cast<const json&>(doc));
}

ParseResult parse(std::string_view text) {
  json doc;
  try {
    doc = yaml_to_json(text);
  } catch (const YamlError& e) {
    ParseResult r;
    r.errors.push_back({"", std::string("cannot parse: ") + e.what()});
    return r;
  }
  if (doc.is_null()) {
    ParseResult r;
    r.errors.push_back({"", "empty document"});
    return r;
  }
  return from_json(std::move(doc));
}

json to_json(const Dgd& d) {
  json j = write_struct(d);
  // Always written (even empty), so that a document without them does not read back
  // with the defaults.
  j["apiVersion"] = d.api_version;
  j["kind"] = d.kind;
  return j;
}
json to_json(const Component& c) { return write_struct(c); }
json to_json(const Engine& e) { return write_struct(e); }
json to_json(const Router& r) { return write_struct(r); }
json to_json(const Model& m) { return write_struct(m); }
json to_json(const Placement& p) { return write_struct(p); }
json to_json(const EnvVar& e) { return write_struct(e); }

Component component_from_json(const json& j, const std::string& path, std::vector<FieldError>& errors) {
  Component c;
  read_struct(j, path, c, errors);
  return c;
}

std::vector<std::string> model_field_paths() {
  std::vector<std::string> out;
  Dgd probe;
  PathLister lister{"", out};
  detail::describe(lister, probe);
  return out;
}

}  // namespace dgd::api
