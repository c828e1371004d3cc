// status.backendFramework: the engine `kubectl get dgd` shows in its BACKEND column,
// written from the expanded graph and kept by passes that do not expand the spec.
#include "dgd/reconcile/status.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

StatusInput input() {
  StatusInput in;
  in.generation = 1;
  in.now = "2026-11-30T00:00:00Z";
  return in;
}

TEST(StatusBackend, WrittenFromTheExpandedGraph) {
  StatusInput in = input();
  in.backend_framework = "sglang";
  EXPECT_EQ(compute_status(in).value("backendFramework", ""), "sglang");
}

TEST(StatusBackend, KeptFromTheLiveStatusWhenThePassDidNotExpand) {
  const json live = {{"backendFramework", "vllm"}};
  StatusInput in = input();
  in.previous_status = &live;
  const json st = compute_status(in);
  EXPECT_EQ(st.value("backendFramework", ""), "vllm");
  // At steady state the computed status equals the live one, so nothing is written.
  StatusInput again = input();
  again.previous_status = &st;
  EXPECT_FALSE(status_changed(st, compute_status(again)));
}

TEST(StatusBackend, AbsentUntilKnown) {
  EXPECT_FALSE(compute_status(input()).contains("backendFramework"));
  const json live = {{"backendFramework", 7}};  // not a string: not carried over
  StatusInput in = input();
  in.previous_status = &live;
  EXPECT_FALSE(compute_status(in).contains("backendFramework"));
}

}  // namespace
}  // namespace dgd::reconcile
