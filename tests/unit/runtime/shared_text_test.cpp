// SharedTextPool / SplicedText: cached objects share the large values they have in common,
// and every reader still sees exactly the text it would see without sharing.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/runtime/shared_text.h"
#include "dgd/runtime/store.h"

namespace dgd::runtime {
namespace {

using nlohmann::json;

// A worker Deployment of graph `graph`: what differs between graphs is a few names.
std::string deployment(const std::string& graph) {
  json d = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
            {"metadata", {{"name", graph + "-worker"}, {"namespace", "ns"}, {"uid", "uid-" + graph}}}};
  d["spec"]["replicas"] = 2;
  auto& c = d["spec"]["template"]["spec"]["containers"];
  c.push_back({{"name", "main"},
               {"command", {"/bin/bash", "-lc", std::string(3000, 's') + " \"quoted\" \\ \u00e9"}},
               {"args", {"--model", "deepseek-ai/DeepSeek-V4.1-Flash", "--kv-transfer-config",
                         R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})", "--max-num-seqs", "1024"}},
               {"env", {{{"name", "DYN_NAMESPACE"}, {"value", "ns-" + graph}},
                        {{"name", "HF_HOME"}, {"value", "/shared-model-cache"}}}},
               {"livenessProbe", {{"httpGet", {{"path", "/live"}, {"port", "system"}}}, {"failureThreshold", 60},
                                  {"periodSeconds", 10}}},
               {"resources", {{"limits", {{"nvidia.com/gpu", "8"}}}, {"requests", {{"cpu", "10"}}}}}});
  d["spec"]["template"]["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"] = graph;
  d["status"] = {{"replicas", 2}, {"conditions", json::array()}};
  return d.dump();
}

TEST(SharedTextPool, SharesAValueTheSecondTimeAndForgetsItWhenUnused) {
  SharedTextPool pool;
  const std::string v(100, 'x');
  EXPECT_EQ(pool.share(v), nullptr);  // first time: the caller keeps its copy
  auto a = pool.share(v);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(*a, v);
  auto b = pool.share(v);
  EXPECT_EQ(a.get(), b.get());  // one copy
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_EQ(pool.bytes(), 100u);
  a.reset();
  b.reset();
  EXPECT_EQ(pool.size(), 0u);
  EXPECT_EQ(pool.bytes(), 0u);
  pool.set_enabled(false);
  EXPECT_EQ(pool.share(v), nullptr);
  EXPECT_EQ(pool.share(v), nullptr);
}

TEST(SharedTextPool, ValuesOfOneObjectOnlyAreNotShared) {
  // A watch delivers version after version of one object: its own values are not worth an
  // entry in the pool. A second object with the value is.
  SharedTextPool pool;
  const std::string v(100, 'u');
  EXPECT_EQ(pool.share(v, 7), nullptr);
  EXPECT_EQ(pool.share(v, 7), nullptr);
  EXPECT_EQ(pool.share(v, 7), nullptr);
  EXPECT_EQ(pool.size(), 0u);
  auto p = pool.share(v, 8);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(pool.share(v, 7).get(), p.get()) << "once shared, the first owner gets it too";

  std::vector<ObjectPtr> versions;
  for (int rv = 1; rv <= 3; ++rv) {
    json o = json::parse(deployment("only"));
    o["metadata"]["resourceVersion"] = std::to_string(rv);
    versions.push_back(CachedObject::from_text(o.dump(), FieldProjection(), &pool));
    EXPECT_EQ(versions.back()->text().shared_values(), 0u) << rv;
  }
  auto other = CachedObject::from_text(deployment("other"), FieldProjection(), &pool);
  EXPECT_GT(other->text().shared_values(), 0u);
}

TEST(SplicedText, RebuildsTheExactTextAndSharesWhatObjectsHaveInCommon) {
  SharedTextPool pool;
  std::vector<SplicedText> texts;
  std::vector<std::string> originals;
  for (int i = 0; i < 6; ++i) {
    originals.push_back(json::parse(deployment("g" + std::to_string(i))).dump());
    texts.push_back(SplicedText::make(originals.back(), pool, {"apiVersion", "kind", "metadata"}));
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(texts[i].str(), originals[i]) << i;
    EXPECT_EQ(texts[i].size(), originals[i].size());
  }
  // The first object keeps its own copy; from the second on the script, the args and the
  // probe are shared; the env (it names the graph) and metadata are not.
  EXPECT_EQ(texts[0].shared_values(), 0u);
  EXPECT_GE(texts[5].shared_values(), 3u);
  EXPECT_LT(texts[5].own_bytes(), 1000u);
  EXPECT_NE(texts[5].str().find("\"DYN_NAMESPACE\",\"value\":\"ns-g5\""), std::string::npos);
  EXPECT_GE(pool.bytes(), 3000u);
  texts.clear();
  EXPECT_EQ(pool.size(), 0u);
}

TEST(SplicedText, SkippedMembersAndInvalidTextStayWhole) {
  SharedTextPool pool;
  const std::string meta = R"({"metadata":{"annotations":{"a":")" + std::string(200, 'm') + R"("}},"x":1})";
  for (int i = 0; i < 3; ++i) {
    auto t = SplicedText::make(meta, pool, {"metadata"});
    EXPECT_EQ(t.shared_values(), 0u);
    EXPECT_EQ(t.str(), meta);
  }
  const std::string broken = R"({"spec":")" + std::string(200, 'b') + R"(",)";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(SplicedText::make(broken, pool, {}).str(), broken);
  EXPECT_EQ(SplicedText::make("", pool, {}).str(), "");
  // A hostile nesting depth is kept inline, not walked (the walk recurses).
  const std::string deep = R"({"spec":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(SplicedText::make(deep, pool, {}).str(), deep);
}

// Random JSON objects built from a small vocabulary of large values: every shape of
// sharing (nested, in arrays, at the ends, next to each other) must rebuild exactly.
TEST(SplicedText, RandomObjectsRoundTrip) {
  SharedTextPool pool;
  std::mt19937 rng(7);
  std::vector<json> big;
  for (int i = 0; i < 6; ++i) big.push_back(std::string(60 + 20 * i, static_cast<char>('a' + i)));
  big.push_back(json::array({big[0], big[1], 5}));
  big.push_back(json{{"k", big[2]}, {"e", "\u00e9\n\t\""}, {"n", nullptr}});
  std::function<json(int)> gen = [&](int depth) -> json {
    const int pick = static_cast<int>(rng() % 6);
    if (depth > 3 || pick == 0) return big[rng() % big.size()];
    if (pick == 1) return static_cast<int>(rng() % 1000);
    if (pick == 2) return "s" + std::to_string(rng() % 5);
    if (pick == 3) {
      json a = json::array();
      for (unsigned i = 0, n = rng() % 5; i < n; ++i) a.push_back(gen(depth + 1));
      return a;
    }
    json o = json::object();
    for (unsigned i = 0, n = rng() % 5; i < n; ++i) o["k" + std::to_string(i)] = gen(depth + 1);
    return o;
  };
  std::vector<std::pair<std::string, SplicedText>> kept;
  size_t shared = 0;
  for (int i = 0; i < 400; ++i) {
    json o = {{"metadata", {{"name", "o" + std::to_string(i)}}}, {"spec", gen(0)}, {"status", gen(1)}};
    std::string text = o.dump();
    auto t = SplicedText::make(text, pool, {"metadata"});
    ASSERT_EQ(t.str(), text);
    shared += t.shared_values();
    if (i % 3 == 0) kept.emplace_back(std::move(text), std::move(t));
  }
  EXPECT_GT(shared, 100u);
  for (const auto& [text, t] : kept) EXPECT_EQ(t.str(), text);
}

TEST(SharedTextPool, ConcurrentSharersAgree) {
  SharedTextPool pool;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string v = std::string(80, 'v') + std::to_string((i + t) % 17);
        auto p = pool.share(v);
        if (p) {
          EXPECT_EQ(*p, v);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(pool.size(), 0u);  // nothing holds them any more
}

TEST(CachedObject, SharesTheTemplatesOfSimilarObjectsAndReadsTheSame) {
  // As an informer with share_values caches them: the objects read exactly as before.
  SharedTextPool pool;
  std::vector<ObjectPtr> objects;
  for (int i = 0; i < 4; ++i) {
    const std::string text = deployment("graph" + std::to_string(i));
    auto o = CachedObject::from_text(text, FieldProjection(), &pool);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->object(), json::parse(text));
    EXPECT_EQ(o->json_text(), json::parse(text).dump());  // the server's key order is nlohmann's here
    EXPECT_EQ(o->name(), "graph" + std::to_string(i) + "-worker");
    objects.push_back(o);
  }
  EXPECT_GT(objects[3]->text().shared_values(), 0u);
  EXPECT_LT(objects[3]->text().own_bytes(), objects[3]->json_size() / 3);
  // Without a pool (the default) and on the DOM path nothing is shared; the text is the same.
  auto plain = CachedObject::from_text(deployment("graph3"));
  auto dom = CachedObject::make(json::parse(deployment("graph3")));
  EXPECT_EQ(plain->text().shared_values(), 0u);
  EXPECT_EQ(dom->text().shared_values(), 0u);
  EXPECT_EQ(plain->json_text(), objects[3]->json_text());
  EXPECT_EQ(dom->json_text(), objects[3]->json_text());
  // A projection keeps only its fields, and shares what it keeps.
  auto projected = CachedObject::from_text(deployment("graph3"), FieldProjection({"spec.template.spec.containers.command"}), &pool);
  auto projected_dom = CachedObject::make(json::parse(deployment("graph3")), FieldProjection({"spec.template.spec.containers.command"}));
  EXPECT_EQ(projected->json_text(), projected_dom->json_text());
  EXPECT_EQ(projected->text().shared_values(), 1u);
  objects.clear();
  projected.reset();
  EXPECT_EQ(pool.size(), 0u);
}

}  // namespace
}  // namespace dgd::runtime
