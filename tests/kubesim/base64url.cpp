#include "kubesim/base64url.h"

#include "dgd/kube/base64.h"

namespace kubesim {

std::string base64url_encode(std::string_view in) {
  std::string out = dgd::kube::base64_encode(in);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

}  // namespace kubesim
