// kube-sim: Kubernetes' own protobuf schemas of the built-in types, and the message type of a kind.
//
// The descriptors are the `generated.proto` files of k8s.io/api and k8s.io/apimachinery as
// kubectl's Go packages register them (extracted at build time by extract_descriptors.cpp and
// embedded). A build without kubectl embeds none: kubernetes_descriptors() is then nullptr and
// protobuf bodies are answered 415. Lookups are thread-safe.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <memory>
#include <string>

namespace kubesim::protobuf {

// The pool of every embedded Kubernetes descriptor file; nullptr when none was embedded.
const google::protobuf::DescriptorPool* kubernetes_descriptors();

// The message type Kubernetes encodes group/version/kind as (`apps`/`v1`/`Deployment` ->
// k8s.io.api.apps.v1.Deployment, meta kinds such as DeleteOptions in
// k8s.io.apimachinery.pkg.apis.meta.v1); nullptr when there is none.
const google::protobuf::Descriptor* message_type_of(const std::string& group, const std::string& version,
                                                    const std::string& kind);

// An empty mutable message of `type` (from one shared factory).
std::unique_ptr<google::protobuf::Message> new_message(const google::protobuf::Descriptor* type);

// Whether the Go field behind `field` is a pointer (gogoproto.nullable, true unless the
// descriptor says false): a non-pointer field's zero value is the same as its absence.
bool is_nullable(const google::protobuf::FieldDescriptor* field);

}  // namespace kubesim::protobuf
