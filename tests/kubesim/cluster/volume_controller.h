// kube-sim cluster: PersistentVolumeClaim binding (pure), standing in for a
// dynamic provisioner plus the PV controller.
//
// A PVC is bound when its storage class is known: spec.storageClassName, or the
// default class when unset (written into the spec, as the admission plugin
// does). With no classes configured every class is known; an explicit "" (static
// binding only) or an unknown class keeps it Pending, and so does the test knob
// annotation sim.dgd.dev/bind: "false". Binding writes spec.volumeName
// "pvc-<uid>" and the bind annotations first, then status {phase: Bound,
// accessModes, capacity.storage = the request}. No PersistentVolume objects.
#pragma once

#include "kubesim/cluster/snapshot.h"

#include <string>
#include <vector>

namespace kubesim::cluster {

inline constexpr const char* kBindAnnotation = "sim.dgd.dev/bind";

struct StorageClasses {
  std::vector<std::string> names;  // empty: any class binds
  std::string default_class;
};

class VolumeController {
 public:
  explicit VolumeController(StorageClasses classes) : classes_(std::move(classes)) {}
  Writes sync(const Snapshot& snap, const Env& env) const;

 private:
  StorageClasses classes_;
};

}  // namespace kubesim::cluster
