#include "kubesim/protobuf/message_json.h"

#include "dgd/kube/base64.h"
#include "kubesim/openapi/swagger_document.h"
#include "kubesim/protobuf/descriptor_set.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <utility>

namespace kubesim::protobuf {
namespace {

namespace gp = google::protobuf;
using nlohmann::json;

const std::string meta_v1 = "k8s.io.apimachinery.pkg.apis.meta.v1.";

// Go's encoding/json writes invalid UTF-8 as U+FFFD; nlohmann's replace handler does the same.
json utf8_string(const std::string& s) {
  bool ascii = true;
  for (unsigned char c : s) ascii = ascii && c < 0x80;
  if (ascii) return s;
  return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace));
}

json embedded_json(const std::string& raw, const std::string& what) {
  if (raw.empty()) return nullptr;
  try {
    return json::parse(raw);
  } catch (const json::exception& e) {
    throw std::invalid_argument(what + " does not hold JSON: " + e.what());
  }
}

// RFC 3339 in UTC, with `micros` six fractional digits (MicroTime) or none (Time).
json rfc3339(int64_t seconds, int32_t nanos, bool micros) {
  const time_t t = static_cast<time_t>(seconds);
  std::tm tm{};
  char buf[64];
  if (!gmtime_r(&t, &tm) || std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
    throw std::invalid_argument("time out of range: " + std::to_string(seconds));
  std::string out = buf;
  if (micros) {
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%06d", static_cast<int>(nanos / 1000));
    out += frac;
  }
  return out + "Z";
}

json time_json(const gp::Message& m, bool micros) {
  const auto* d = m.GetDescriptor();
  const auto* r = m.GetReflection();
  const auto* seconds = d->FindFieldByName("seconds");
  const auto* nanos = d->FindFieldByName("nanos");
  // An empty message is Go's zero time, which metav1 serializes as null.
  if (!seconds || !nanos || (!r->HasField(m, seconds) && !r->HasField(m, nanos))) return nullptr;
  return rfc3339(r->GetInt64(m, seconds), r->GetInt32(m, nanos), micros);
}

// Go's fmtFrac: the last `prec` digits of v as a fraction without trailing zeros.
std::string go_fraction(uint64_t& v, int prec) {
  std::string digits;
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const auto digit = static_cast<char>('0' + v % 10);
    print = print || digit != '0';
    if (print) digits.insert(digits.begin(), digit);
    v /= 10;
  }
  return print ? "." + digits : "";
}

json field_json(const gp::Message& m, const gp::FieldDescriptor* f, int index);

bool is_string_slice(const gp::Descriptor* d) {
  return d->field_count() == 1 && d->field(0)->name() == "items" && d->field(0)->is_repeated() &&
         d->field(0)->type() == gp::FieldDescriptor::TYPE_STRING;
}

// The JSON value of a wire type (is_wire_type).
json wire_json(const gp::Message& m) {
  const auto* d = m.GetDescriptor();
  const auto* r = m.GetReflection();
  const std::string& name = d->full_name();
  if (name == meta_v1 + "Time") return time_json(m, false);
  if (name == meta_v1 + "MicroTime") return time_json(m, true);
  if (name == meta_v1 + "Duration") {
    const auto* f = d->FindFieldByName("duration");
    return go_duration_string(f ? r->GetInt64(m, f) : 0);
  }
  if (name == meta_v1 + "FieldsV1" || name == "k8s.io.apimachinery.pkg.runtime.RawExtension") {
    const auto* f = d->FindFieldByName("Raw");
    if (!f) f = d->FindFieldByName("raw");
    return embedded_json(f ? r->GetString(m, f) : std::string(), d->name());
  }
  if (name == "k8s.io.apimachinery.pkg.api.resource.Quantity") {
    const auto* f = d->FindFieldByName("string");
    const std::string s = f ? r->GetString(m, f) : std::string();
    return s.empty() ? json("0") : utf8_string(s);
  }
  if (name == "k8s.io.apimachinery.pkg.util.intstr.IntOrString") {
    const auto* type = d->FindFieldByName("type");
    const auto* int_val = d->FindFieldByName("intVal");
    const auto* str_val = d->FindFieldByName("strVal");
    if (type && int_val && str_val && r->GetInt64(m, type) == 1) return utf8_string(r->GetString(m, str_val));
    return int_val ? json(r->GetInt32(m, int_val)) : json(0);
  }
  // A Go named slice of strings (meta/v1 Verbs, ExtraValue) is the message `repeated string items = 1`.
  json items = json::array();
  for (int i = 0; i < r->FieldSize(m, d->field(0)); ++i) items.push_back(field_json(m, d->field(0), i));
  return items;
}

json object_json(const gp::Message& m, const json* enclosing);

// The value of field `f` (element `index` of a repeated field, -1 for a singular one).
json field_json(const gp::Message& m, const gp::FieldDescriptor* f, int index) {
  const auto* r = m.GetReflection();
  const bool rep = index >= 0;
  using T = gp::FieldDescriptor::CppType;
  switch (f->cpp_type()) {
    case T::CPPTYPE_INT32: return rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
    case T::CPPTYPE_INT64: return rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
    case T::CPPTYPE_UINT32: return rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
    case T::CPPTYPE_UINT64: return rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f);
    case T::CPPTYPE_BOOL: return rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f);
    case T::CPPTYPE_FLOAT:
    case T::CPPTYPE_DOUBLE: {
      const double v = f->cpp_type() == T::CPPTYPE_FLOAT ? (rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f))
                                                         : (rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
      if (!std::isfinite(v)) throw std::invalid_argument("unsupported value: " + std::to_string(v));
      return v;
    }
    case T::CPPTYPE_ENUM: return rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
    case T::CPPTYPE_STRING: {
      const std::string s = rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
      return f->type() == gp::FieldDescriptor::TYPE_BYTES ? json(dgd::kube::base64_encode(s)) : utf8_string(s);
    }
    case T::CPPTYPE_MESSAGE: return message_to_json(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f));
  }
  return nullptr;
}

bool is_zero(const json& v) {
  return (v.is_string() && v.get_ref<const std::string&>().empty()) || (v.is_number() && v == 0) ||
         (v.is_boolean() && !v.get<bool>());
}

}  // namespace

json message_to_json(const gp::Message& m) {
  if (is_wire_type(m.GetDescriptor())) return wire_json(m);
  return object_json(m, nullptr);
}

namespace {

// The fields of `m` into `out`; `enclosing` is the definition `m` is inlined into.
void write_fields(const gp::Message& m, const json* enclosing, json& out) {
  const auto* r = m.GetReflection();
  for (const JsonField& jf : json_fields(m.GetDescriptor(), enclosing)) {
    const auto* f = jf.field;
    if (jf.inlined) {
      if (r->HasField(m, f)) {
        const json* def = openapi_definition_of(m.GetDescriptor());
        write_fields(r->GetMessage(m, f), def ? def : enclosing, out);
      }
    } else if (f->is_map()) {
      if (r->FieldSize(m, f) == 0) continue;
      json obj = json::object();
      const auto* key = f->message_type()->map_key();
      const auto* value = f->message_type()->map_value();
      for (int k = 0; k < r->FieldSize(m, f); ++k) {
        const auto& entry = r->GetRepeatedMessage(m, f, k);
        const json key_json = field_json(entry, key, -1);
        obj[key_json.is_string() ? key_json.get<std::string>() : key_json.dump()] = field_json(entry, value, -1);
      }
      out[jf.key] = std::move(obj);
    } else if (f->is_repeated()) {
      if (r->FieldSize(m, f) == 0) continue;
      json arr = json::array();
      for (int k = 0; k < r->FieldSize(m, f); ++k) arr.push_back(field_json(m, f, k));
      out[jf.key] = std::move(arr);
    } else if (r->HasField(m, f)) {
      json v = field_json(m, f, -1);
      if (f->cpp_type() != gp::FieldDescriptor::CPPTYPE_MESSAGE && !is_nullable(f) && !jf.written_when_zero &&
          is_zero(v))
        continue;
      out[jf.key] = std::move(v);
    }
  }
}

json object_json(const gp::Message& m, const json* enclosing) {
  json out = json::object();
  write_fields(m, enclosing, out);
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<JsonField> resolve_fields(const gp::Descriptor* type, const json* def) {
  const json* props = def && def->contains("properties") ? &(*def)["properties"] : nullptr;
  const json* required = def && def->contains("required") ? &(*def)["required"] : nullptr;
  std::vector<JsonField> out;
  for (int i = 0; i < type->field_count(); ++i) {
    JsonField jf;
    jf.field = type->field(i);
    jf.key = jf.field->json_name();
    if (props && !props->contains(jf.key)) {
      for (const auto& [name, schema] : props->items())
        if (lower(name) == lower(jf.key)) {
          jf.key = name;
          break;
        }
    }
    jf.in_openapi = props && props->contains(jf.key);
    if (props && !jf.in_openapi && !jf.field->is_repeated() &&
        jf.field->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE && !is_wire_type(jf.field->message_type())) {
      jf.inlined = true;
      jf.in_openapi = true;
      jf.key.clear();
    }
    if (required)
      for (const auto& name : *required)
        if (name == jf.key) jf.written_when_zero = true;
    out.push_back(std::move(jf));
  }
  return out;
}

}  // namespace

const std::vector<JsonField>& json_fields(const gp::Descriptor* type, const json* enclosing) {
  static std::mutex mu;
  static std::map<std::pair<const gp::Descriptor*, const json*>, std::unique_ptr<std::vector<JsonField>>> cache;
  const json* def = openapi_definition_of(type);
  if (def) enclosing = nullptr;  // the type's own definition decides
  std::lock_guard lock(mu);
  auto& slot = cache[{type, enclosing}];
  if (!slot) slot = std::make_unique<std::vector<JsonField>>(resolve_fields(type, def ? def : enclosing));
  return *slot;
}

const json* openapi_definition_of(const gp::Descriptor* type) {
  const std::string& name = type->full_name();
  if (name.rfind("k8s.io.", 0) != 0) return nullptr;
  return openapi::definition("io.k8s." + name.substr(7));
}

bool is_wire_type(const gp::Descriptor* type) {
  static const std::set<std::string> wire_types = {
      meta_v1 + "Time", meta_v1 + "MicroTime", meta_v1 + "Duration", meta_v1 + "FieldsV1",
      "k8s.io.apimachinery.pkg.runtime.RawExtension", "k8s.io.apimachinery.pkg.api.resource.Quantity",
      "k8s.io.apimachinery.pkg.util.intstr.IntOrString"};
  return wire_types.count(type->full_name()) > 0 || is_string_slice(type);
}

std::string go_duration_string(int64_t nanoseconds) {
  if (nanoseconds == 0) return "0s";
  uint64_t u = nanoseconds < 0 ? uint64_t(0) - static_cast<uint64_t>(nanoseconds) : static_cast<uint64_t>(nanoseconds);
  std::string out;
  if (u < 1000000000ull) {
    // Below one second: a single unit, ns, µs or ms, with a fraction.
    if (u < 1000ull) {
      out = std::to_string(u) + "ns";
    } else if (u < 1000000ull) {
      const std::string frac = go_fraction(u, 3);
      out = std::to_string(u) + frac + "µs";
    } else {
      const std::string frac = go_fraction(u, 6);
      out = std::to_string(u) + frac + "ms";
    }
  } else {
    const std::string frac = go_fraction(u, 9);
    out = std::to_string(u % 60) + frac + "s";
    u /= 60;
    if (u > 0) {
      out = std::to_string(u % 60) + "m" + out;
      u /= 60;
      if (u > 0) out = std::to_string(u) + "h" + out;
    }
  }
  return nanoseconds < 0 ? "-" + out : out;
}

}  // namespace kubesim::protobuf
