// The Go zero value of a built-in kind as JSON, from the protobuf descriptors.
#include "kubesim/apply/go_zero_object.h"

#include "kubesim/protobuf/descriptor_set.h"
#include "kubesim/protobuf/message_json.h"

#include <map>
#include <mutex>
#include <set>

namespace kubesim::apply {

namespace {

namespace gp = google::protobuf;
using nlohmann::json;

void write_zero_fields(const gp::Descriptor* type, const json* enclosing, json& out,
                       std::set<const gp::Descriptor*>& open);

// The zero value of a non-pointer struct of `type`.
json zero_struct(const gp::Descriptor* type, const json* enclosing, std::set<const gp::Descriptor*>& open) {
  json out = json::object();
  if (open.insert(type).second) {  // a value struct cannot contain itself; guard anyway
    write_zero_fields(type, enclosing, out, open);
    open.erase(type);
  }
  return out;
}

void write_zero_fields(const gp::Descriptor* type, const json* enclosing, json& out,
                       std::set<const gp::Descriptor*>& open) {
  for (const protobuf::JsonField& jf : protobuf::json_fields(type, enclosing)) {
    const gp::FieldDescriptor* f = jf.field;
    const bool message = f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE;
    if (jf.inlined) {
      // An embedded struct: its fields are written into the parent.
      if (message && !protobuf::is_nullable(f)) {
        const json* def = protobuf::openapi_definition_of(type);
        write_zero_fields(f->message_type(), def ? def : enclosing, out, open);
      }
      continue;
    }
    if (f->is_repeated() || f->is_map() || (message && protobuf::is_nullable(f))) {
      if (jf.written_when_zero) out[jf.key] = nullptr;  // nil, written without omitempty
    } else if (message && !protobuf::is_wire_type(f->message_type())) {
      out[jf.key] = zero_struct(f->message_type(), nullptr, open);
    } else if (message && jf.written_when_zero) {
      out[jf.key] = nullptr;  // a zero Time is written as null
    }
  }
}

}  // namespace

std::optional<json> go_zero_object(const std::string& api_version, const std::string& kind) {
  static std::mutex mu;
  static std::map<std::pair<std::string, std::string>, std::optional<json>> cache;
  std::lock_guard lock(mu);
  auto key = std::make_pair(api_version, kind);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::optional<json> out;
  if (protobuf::kubernetes_descriptors()) {
    const auto slash = api_version.find('/');
    const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    if (const gp::Descriptor* type = protobuf::message_type_of(group, version, kind)) {
      std::set<const gp::Descriptor*> open;
      out = zero_struct(type, nullptr, open);
    }
  }
  cache[key] = out;
  return out;
}

}  // namespace kubesim::apply
