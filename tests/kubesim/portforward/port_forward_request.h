// kube-sim: POST (or GET) /api/v1/namespaces/{ns}/pods/{name}/portforward, the
// connect subresource `kubectl port-forward` uses. The request must upgrade to
// SPDY/3.1 (Connection: Upgrade, Upgrade: SPDY/3.1) and may offer protocols in
// X-Stream-Protocol-Version, of which kube-sim speaks portforward.k8s.io; otherwise it
// is answered as apimachinery's httpstream/spdy upgrader answers: 400 "unable to
// upgrade: missing upgrade headers in request: ..." (which is also what a WebSocket
// attempt gets, so kubectl falls back to SPDY) or 403 "unable to upgrade: unable to
// negotiate protocol: ...". After the 101, the connection is served by
// port_forward_session.h until it closes. The caller has authorized the request
// (create pods/portforward) and found the pod.
#pragma once

#include <nlohmann/json.hpp>

#include "kubesim/http_types.h"
#include "kubesim/resource_registry.h"
#include "kubesim/service_proxy.h"
#include "kubesim/store.h"

namespace kubesim::portforward {

// Answers the request; returns the status sent (101 when the session ran).
// `pods` and `services` are the two kinds' types in `store`.
int serve_request(const HttpRequest& req, ResponseWriter& out, const nlohmann::json& pod, const Store& store,
                  const ResourceType& pods, const ResourceType& services, const ServiceProxy& proxy);

}  // namespace kubesim::portforward
