#include "kubesim/protobuf/protobuf_body.h"

#include "kubesim/api_error.h"
#include "kubesim/protobuf/descriptor_set.h"
#include "kubesim/protobuf/message_json.h"

#include <stdexcept>

namespace kubesim {

namespace {

const std::string magic("k8s\0", 4);

}  // namespace

bool protobuf_bodies_supported() { return protobuf::kubernetes_descriptors() != nullptr; }

nlohmann::json decode_protobuf_body(const std::string& body) {
  // The wording of k8s.io/apimachinery's protobuf serializer.
  if (body.empty()) throw ApiError::bad_request("empty data");
  if (body.compare(0, magic.size(), magic) != 0)
    throw ApiError::bad_request("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  if (body.size() == magic.size()) throw ApiError::bad_request("empty body");
  const auto* pool = protobuf::kubernetes_descriptors();
  const auto* unknown_type = pool ? pool->FindMessageTypeByName("k8s.io.apimachinery.pkg.runtime.Unknown") : nullptr;
  if (!unknown_type)
    throw ApiError(415, "UnsupportedMediaType",
                   "the body of the request was in an unknown format - accepted media types include: "
                   "application/json, application/yaml");
  auto envelope = protobuf::new_message(unknown_type);
  if (!envelope->ParseFromArray(body.data() + magic.size(), static_cast<int>(body.size() - magic.size())))
    throw ApiError::bad_request("the body of the request was in an unknown format: the runtime.Unknown envelope does not parse");
  const auto* reflection = envelope->GetReflection();
  const auto& type_meta = reflection->GetMessage(*envelope, unknown_type->FindFieldByName("typeMeta"));
  const nlohmann::json gvk = protobuf::message_to_json(type_meta);
  const std::string api_version = gvk.value("apiVersion", "");
  const std::string kind = gvk.value("kind", "");
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  const auto* type = protobuf::message_type_of(group, version, kind);
  if (!type)
    throw ApiError::bad_request("no kind \"" + kind + "\" is registered for version \"" + api_version +
                                "\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
  const std::string raw = reflection->GetString(*envelope, unknown_type->FindFieldByName("raw"));
  auto object = protobuf::new_message(type);
  if (!object->ParseFromString(raw))
    throw ApiError::bad_request(kind + " in version \"" + version + "\" cannot be handled as a " + kind +
                                ": the protobuf message does not parse");
  nlohmann::json out;
  try {
    out = protobuf::message_to_json(*object);
  } catch (const std::invalid_argument& e) {
    throw ApiError::bad_request(kind + " in version \"" + version + "\" cannot be handled as a " + kind + ": " + e.what());
  }
  out["apiVersion"] = api_version;
  out["kind"] = kind;
  return out;
}

}  // namespace kubesim
