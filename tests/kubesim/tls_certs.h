// kube-sim: an in-memory PKI for --tls: a CA, a server certificate for the given
// SANs, and the admin client certificate (CN=kube-sim-admin, O=system:masters).
// EC P-256 keys, SHA-256 signatures, one year validity. PEM strings throughout.
#pragma once

#include <string>
#include <vector>

namespace kubesim {

struct Pki {
  std::string ca_cert, ca_key;
  std::string server_cert, server_key;
  std::string client_cert, client_key;
};

// `sans`: "localhost", "127.0.0.1", "DNS:x", "IP:1.2.3.4" (bare IPs are detected).
// Throws std::runtime_error with OpenSSL's message on failure.
Pki generate_pki(const std::vector<std::string>& sans);

// Subject CN and O values of a PEM certificate (for tests).
std::pair<std::string, std::vector<std::string>> certificate_subject(const std::string& pem);

}  // namespace kubesim
