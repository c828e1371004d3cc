#include "kubesim/kubeconfig.h"

#include "dgd/kube/base64.h"

#include "kubesim/tls_certs.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace kubesim {

void write_kubeconfig(const std::string& path, const KubeconfigSpec& s) {
  std::string y = "apiVersion: v1\nkind: Config\nclusters:\n- name: kube-sim\n  cluster:\n    server: " + s.server + "\n";
  if (!s.ca_pem.empty()) y += "    certificate-authority-data: " + dgd::kube::base64_encode(s.ca_pem) + "\n";
  y += "contexts:\n- name: kube-sim\n  context:\n    cluster: kube-sim\n    user: kube-sim-admin\n    namespace: default\n";
  y += "current-context: kube-sim\npreferences: {}\nusers:\n- name: kube-sim-admin\n  user:";
  std::string user;
  if (!s.client_cert.empty()) {
    user += "\n    client-certificate-data: " + dgd::kube::base64_encode(s.client_cert);
    user += "\n    client-key-data: " + dgd::kube::base64_encode(s.client_key);
  }
  if (!s.token.empty()) user += "\n    token: " + s.token;
  y += user.empty() ? " {}\n" : user + "\n";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << y;
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp + " to " + path);
}

}  // namespace kubesim
