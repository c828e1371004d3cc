// The plans that stop short of the full diff (dgd_plan.h): the status-only pass the memo
// allows, and the pass over an invalid spec; with the small pieces the full plan shares
// with them. Internal to the reconcile part.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/dgd_plan.h"

namespace dgd::reconcile {

const ChildKind& deployment_kind();
std::string deployment_key(const std::string& ns, const std::string& name);
// A plan of `kind` for the DGD `dgd` (its uid and generation read from it).
Plan begin_plan(PlanKind kind, nlohmann::json dgd);

// The status only, when the memo still describes the children; nullopt when the download
// Job is gone or failed, or whether the workers wait for it changed: plan in full.
// `views` holds the cached Deployments check_memo already read.
std::optional<Plan> status_plan(const Snapshot& s, nlohmann::json head, const DgdMemo& memo,
                                std::map<std::string, nlohmann::json>& views);

// Spec errors: nothing is applied or deleted; the Deployments still there are reported,
// so `kubectl get dgd -o yaml` shows what serves.
Plan invalid_plan(const Snapshot& s, nlohmann::json dgd, std::vector<std::string> errors);

}  // namespace dgd::reconcile
