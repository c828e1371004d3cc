#include "kubesim/cluster/snapshot.h"

namespace kubesim::cluster {

namespace {
Write make(Write::Op op, std::string api_version, std::string resource, Json obj, std::string why) {
  Write w;
  w.op = op;
  w.api_version = std::move(api_version);
  w.resource = std::move(resource);
  w.ns = namespace_of(obj);
  w.name = name_of(obj);
  w.object = std::move(obj);
  w.why = std::move(why);
  return w;
}
}  // namespace

Write Write::create(std::string api_version, std::string resource, Json obj, std::string why) {
  return make(Op::kCreate, std::move(api_version), std::move(resource), std::move(obj), std::move(why));
}
Write Write::update(std::string api_version, std::string resource, Json obj, std::string why) {
  return make(Op::kUpdate, std::move(api_version), std::move(resource), std::move(obj), std::move(why));
}
Write Write::update_status(std::string api_version, std::string resource, Json obj, std::string why) {
  return make(Op::kUpdateStatus, std::move(api_version), std::move(resource), std::move(obj), std::move(why));
}
Write Write::remove(std::string api_version, std::string resource, const Json& obj, std::string why,
                    std::string propagation) {
  Write w = make(Op::kDelete, std::move(api_version), std::move(resource), Json::object(), std::move(why));
  w.ns = namespace_of(obj);
  w.name = name_of(obj);
  w.object = {{"metadata", {{"uid", uid_of(obj)}}}};
  w.propagation = std::move(propagation);
  return w;
}

}  // namespace kubesim::cluster
