// kube-sim: request bodies in Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf).
//
// A body is the magic "k8s\0" and a runtime.Unknown envelope whose typeMeta (apiVersion, kind)
// names the message type of `raw`. decode_protobuf_body returns the object as the JSON the API
// server would have decoded (message_json.h), with apiVersion and kind from the envelope, so the
// rest of kube-sim handles it like a JSON body. Throws ApiError 400 with the decoder's reason
// when the body is not such a message or names a kind without a message type.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim {

// Whether the build embedded Kubernetes' descriptors (it needs kubectl); without them
// protobuf bodies are answered 415.
bool protobuf_bodies_supported();

nlohmann::json decode_protobuf_body(const std::string& body);

}  // namespace kubesim
