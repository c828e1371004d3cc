// kube-sim: one pods/portforward connection after its SPDY/3.1 upgrade, served as
// kubelet serves it (pkg/kubelet/cri/streaming/portforward/httpstream.go). For each
// forwarded connection the client opens an "error" and a "data" stream, paired by their
// requestid header; kube-sim connects to the backend of the data stream's port, relays
// bytes between the data stream and that TCP connection, and writes a failure as text
// on the error stream (kubectl prints it). Both streams are closed when the backend
// closes.
//
// The session answers PING, honours RST_STREAM (the backend connection is cut) and
// GOAWAY (a stream opened after it is dropped unanswered), and returns its receive window with WINDOW_UPDATE (per
// stream and per session) as it hands data to the backend. Its own sends keep to the
// peer's windows once the peer shows it keeps them, by a WINDOW_UPDATE or an initial
// window in SETTINGS: kubectl's SPDY (moby/spdystream) announces SPDY/3.1 but neither
// sends WINDOW_UPDATE nor waits for one, as Kubernetes' own servers do not either, and
// holding it to 64 KiB would stall every response above 64 KiB.
//
// serve() returns once the client closes the connection or the server stops (the read
// returns 0), after a GOAWAY and after every backend connection is closed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "kubesim/http_types.h"
#include "kubesim/portforward/pod_backend.h"

namespace kubesim::portforward {

struct Target {
  std::string pod_id;  // names the pod in error messages, where kubelet names the pod sandbox
  // The backend for a port of the pod; nullopt when nothing listens there.
  std::function<std::optional<BackendAddress>(int64_t port)> backend;
};

void serve(UpgradedConnection& conn, const Target& target);

}  // namespace kubesim::portforward
