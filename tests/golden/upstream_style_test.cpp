// A DGD written for the upstream operator (explicit bash scripts in podTemplate, no typed
// blocks: tests/golden/upstream/dsv4-flash-disagg-h200-agentic.yaml) renders with its
// command and args byte for byte unchanged, plus upstream's names, labels, env and ports.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace dgd {
namespace {

using nlohmann::json;

struct Fixture {
  api::Dgd input;
  std::vector<json> objects;
};

Fixture load() {
  std::ifstream in(std::string(DGD_SOURCE_DIR) + "/tests/golden/upstream/dsv4-flash-disagg-h200-agentic.yaml");
  std::ostringstream ss;
  ss << in.rdbuf();
  auto parsed = api::parse(ss.str());
  EXPECT_TRUE(parsed.ok());
  auto expanded = recipes::expand(recipes::Catalog::builtin(), parsed.dgd);
  EXPECT_TRUE(expanded.ok());
  auto r = render::render(expanded.graph);
  EXPECT_TRUE(r.ok());
  return {parsed.dgd, r.objects};
}

// The object `kind`/`name`; a worker Deployment's name without its generation ("-<hash>").
const json& object(const std::vector<json>& objs, const std::string& kind, const std::string& name) {
  for (const auto& o : objs) {
    const std::string hash =
        kind == "Deployment" ? o["metadata"]["labels"].value("nvidia.com/dynamo-worker-hash", "") : "";
    if (o["kind"] == kind && o["metadata"]["name"] == (hash.empty() ? name : name + "-" + hash)) return o;
  }
  throw std::runtime_error("missing " + kind + "/" + name);
}

const json& main_of(const json& pod_spec) {
  for (const auto& c : pod_spec["containers"]) {
    if (c["name"] == "main") return c;
  }
  throw std::runtime_error("no main");
}

TEST(UpstreamStyle, ArgsAndCommandAreUntouched) {
  auto f = load();
  for (const auto& c : f.input.spec.components) {
    const json& want = main_of(c.pod_template["spec"]);
    const json& dep = object(f.objects, "Deployment", api::child_name(f.input.metadata.name, c.name));
    const json& got = main_of(dep["spec"]["template"]["spec"]);
    EXPECT_EQ(got["command"], want["command"]) << c.name;
    EXPECT_EQ(got["args"], want["args"]) << c.name;
    EXPECT_EQ(got["image"], want["image"]) << c.name;
    EXPECT_EQ(dep["spec"]["replicas"], c.replicas.value_or(1)) << c.name;
  }
}

TEST(UpstreamStyle, UpstreamNamesLabelsAndPorts) {
  auto f = load();
  const std::string dgd = "dsv4-flash-disagg-h200-agentic";
  const std::pair<const char*, const char*> comps[] = {
      {"frontend", "Frontend"}, {"vllmprefillworker", "VllmPrefillWorker"}, {"vllmdecodeworker", "VllmDecodeWorker"}};
  for (const auto& [suffix, comp] : comps) {
    const json& svc = object(f.objects, "Service", dgd + "-" + suffix);
    const json& dep = object(f.objects, "Deployment", dgd + "-" + suffix);
    const json& labels = dep["spec"]["template"]["metadata"]["labels"];
    EXPECT_EQ(labels["nvidia.com/dynamo-graph-deployment-name"], dgd);
    EXPECT_EQ(labels["nvidia.com/dynamo-component"], comp);
    for (auto it = svc["spec"]["selector"].begin(); it != svc["spec"]["selector"].end(); ++it) {
      EXPECT_EQ(labels[it.key()], it.value()) << suffix << " " << it.key();
    }
    const bool frontend = std::string(suffix) == "frontend";
    EXPECT_EQ(svc["spec"]["ports"][0]["port"], frontend ? 8000 : 9090);
    EXPECT_EQ(svc["spec"]["ports"][0]["name"], frontend ? "http" : "system");
    bool has_port = false;
    for (const auto& p : main_of(dep["spec"]["template"]["spec"])["ports"]) {
      has_port |= p["containerPort"] == (frontend ? 8000 : 9090);
    }
    EXPECT_TRUE(has_port) << suffix;
  }
  // The seed page's `kubectl port-forward svc/${DGD}-frontend 8000:8000` target.
  EXPECT_NO_THROW(object(f.objects, "Service", dgd + "-frontend"));
}

TEST(UpstreamStyle, UserShmVolumeWinsAndIsMountedOnce) {
  auto f = load();
  const json& spec = object(f.objects, "Deployment", "dsv4-flash-disagg-h200-agentic-vllmdecodeworker")["spec"]["template"]["spec"];
  int shm_volumes = 0, shm_mounts = 0;
  for (const auto& v : spec["volumes"]) {
    if (v["name"] == "shared-memory") {
      ++shm_volumes;
      EXPECT_EQ(v["emptyDir"]["sizeLimit"], "64Gi");
    }
  }
  for (const auto& m : main_of(spec)["volumeMounts"]) shm_mounts += m["mountPath"] == "/dev/shm";
  EXPECT_EQ(shm_volumes, 1);
  EXPECT_EQ(shm_mounts, 1);
  std::map<std::string, json> env;
  for (const auto& e : main_of(spec)["env"]) env[e["name"]] = e.value("value", json());
  EXPECT_EQ(env["UCX_IB_ADDR_TYPE"], "ib_global");
  EXPECT_EQ(env["DYN_NAMESPACE"], "default-dsv4-flash-disagg-h200-agentic");
  EXPECT_EQ(env["DYN_SYSTEM_PORT"], "9090");
  EXPECT_EQ(main_of(spec)["envFrom"][0]["secretRef"]["name"], "hf-token-secret");
  EXPECT_EQ(main_of(spec)["resources"]["requests"]["rdma/ib"], "4");
}

}  // namespace
}  // namespace dgd
