#include "kubesim/cluster/volume_controller.h"

#include <algorithm>

namespace kubesim::cluster {

Writes VolumeController::sync(const Snapshot& snap, const Env&) const {
  Writes out;
  for (const auto& pvc : snap.pvcs) {
    if (is_terminating(pvc)) continue;
    const std::string phase = str_at(pvc, {"status", "phase"});
    if (phase == "Bound" || phase == "Lost") continue;
    const std::string volume = str_at(pvc, {"spec", "volumeName"});
    if (!volume.empty()) {
      Json p = pvc;
      p["status"]["phase"] = "Bound";
      p["status"]["accessModes"] = at_path(pvc, {"spec", "accessModes"}).is_array() ? pvc["spec"]["accessModes"]
                                                                                     : Json::array({"ReadWriteOnce"});
      std::string size = str_at(pvc, {"spec", "resources", "requests", "storage"}, "1Gi");
      p["status"]["capacity"] = {{"storage", size}};
      out.push_back(Write::update_status("v1", "persistentvolumeclaims", std::move(p), "bound to " + volume));
      continue;
    }
    auto pending = [&] {
      if (phase != "Pending") {
        Json p = pvc;
        p["status"]["phase"] = "Pending";
        out.push_back(Write::update_status("v1", "persistentvolumeclaims", std::move(p), "pending"));
      }
    };
    if (str_at(at_path(pvc, {"metadata", "annotations"}), {kBindAnnotation}) == "false") {
      pending();
      continue;
    }
    const Json& cls = at_path(pvc, {"spec", "storageClassName"});
    std::string klass = cls.is_string() ? cls.get<std::string>() : classes_.default_class;
    bool known = classes_.names.empty() ||
                 std::find(classes_.names.begin(), classes_.names.end(), klass) != classes_.names.end();
    if ((cls.is_string() && klass.empty()) || !known) {
      pending();
      continue;
    }
    Json p = pvc;
    p["spec"]["volumeName"] = "pvc-" + uid_of(pvc);
    if (!cls.is_string() && !klass.empty()) p["spec"]["storageClassName"] = klass;
    auto& ann = p["metadata"]["annotations"];
    ann["pv.kubernetes.io/bind-completed"] = "yes";
    ann["pv.kubernetes.io/bound-by-controller"] = "yes";
    ann["volume.kubernetes.io/storage-provisioner"] = "sim.dgd.dev/provisioner";
    ann["volume.beta.kubernetes.io/storage-provisioner"] = "sim.dgd.dev/provisioner";
    out.push_back(Write::update("v1", "persistentvolumeclaims", std::move(p), "provisioned"));
  }
  return out;
}

}  // namespace kubesim::cluster
