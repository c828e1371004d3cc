// kube-sim: writes the admin kubeconfig (atomically: tmp file + rename) once the
// server accepts connections, so a harness can wait for the file.
#pragma once

#include <string>

namespace kubesim {

struct KubeconfigSpec {
  std::string server;       // https://127.0.0.1:PORT
  std::string ca_pem;       // empty for plain HTTP
  std::string client_cert;  // PEM, optional
  std::string client_key;   // PEM, optional
  std::string token;        // optional bearer token
};

void write_kubeconfig(const std::string& path, const KubeconfigSpec& spec);

}  // namespace kubesim
