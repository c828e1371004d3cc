// The operator's holds_desired judged by kube-sim: for each case of its own unit test, a
// forced server-side apply of the desired state by kube-sim (typed by the OpenAPI
// document, not by the operator's field tables) changes the live object exactly when
// holds_desired says the object does not hold it. A disagreement is a child object the
// operator would rewrite at every pass, or a change it would never write.
#include "kubesim/apply/server_side_apply.h"

#include "dgd/object/desired_state.h"
#include "unit/object/desired_state_cases.h"

#include <gtest/gtest.h>

namespace kubesim::apply {
namespace {

using dgd::object::desired_cases::DesiredCase;
using nlohmann::json;

class HoldsDesiredAgainstApply : public ::testing::TestWithParam<DesiredCase> {};

TEST_P(HoldsDesiredAgainstApply, ApplyChangesTheObjectExactlyWhenItDoesNotHold) {
  const DesiredCase& c = GetParam();
  json live = dgd::object::desired_cases::deployment(c.live_spec);
  json desired = dgd::object::desired_cases::deployment(c.desired_spec);
  ApplyOptions o;
  o.manager = "dgd-operator";
  o.force = true;
  o.time = "t";
  ApplyResult r = server_side_apply(live, desired, *builtin_type("apps", "v1", "Deployment"), o);
  ASSERT_TRUE(r.ok());
  r.object["metadata"].erase("managedFields");
  EXPECT_EQ(r.object == live, c.holds) << "apply result: " << r.object["spec"].dump();
  EXPECT_EQ(dgd::object::holds_desired(live, desired, dgd::object::schema_for_object(desired)), c.holds);
}

// The cases about storage rules of typed kinds (empty maps and lists are not stored) are
// not visible in an apply result and are left out.
std::vector<DesiredCase> apply_cases() {
  std::vector<DesiredCase> out;
  for (const DesiredCase& c : dgd::object::desired_cases::deployment_cases())
    if (c.check_against_apply) out.push_back(c);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Deployment, HoldsDesiredAgainstApply, ::testing::ValuesIn(apply_cases()),
                         [](const ::testing::TestParamInfo<DesiredCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace kubesim::apply
