// decode_list_page reads a list response's text into the cache form without a DOM; it
// must cache exactly what parsing the page and CachedObject::make of each item caches.
#include "dgd/runtime/list_page.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dgd::runtime {
namespace {

using nlohmann::json;

json item(int i) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", "p" + std::to_string(i)},
            {"namespace", "ns"},
            {"uid", "u" + std::to_string(i)},
            {"resourceVersion", std::to_string(10 + i)},
            {"managedFields", {{{"manager", "m"}}}},
            {"annotations", {{"kubectl.kubernetes.io/last-applied-configuration", "{}"}, {"keep", "é\"x"}}},
            {"ownerReferences", {{{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", "rs"},
                                  {"uid", "o" + std::to_string(i % 2)}, {"controller", true}}}}}},
          {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c"}, {"image", "i"}}}}}},
          {"status", {{"phase", "Running"}, {"podIP", "10.0.0.1"}}}};
}

std::string page_text(int n, const std::string& cont, int indent = -1) {
  json page = {{"apiVersion", "v1"}, {"kind", "PodList"},
               {"metadata", {{"resourceVersion", "42"}, {"continue", cont}}}, {"items", json::array()}};
  for (int i = 0; i < n; ++i) page["items"].push_back(item(i));
  return page.dump(indent);
}

void expect_same_as_dom(const std::string& text, const FieldProjection& projection) {
  ListPage page;
  std::string error;
  ASSERT_TRUE(decode_list_page(text, projection, page, &error)) << error;
  json dom = json::parse(text);
  ASSERT_EQ(page.items.size(), dom["items"].size());
  for (size_t i = 0; i < page.items.size(); ++i) {
    auto want = CachedObject::make(dom["items"][i], projection);
    EXPECT_EQ(page.items[i]->object(), want->object());
    EXPECT_EQ(page.items[i]->key(), want->key());
    EXPECT_EQ(page.items[i]->resource_version(), want->resource_version());
    ASSERT_EQ(page.items[i]->owner_refs().size(), want->owner_refs().size());
    EXPECT_EQ(page.items[i]->owner_refs()[0].uid, want->owner_refs()[0].uid);
  }
  EXPECT_EQ(page.resource_version, dom["metadata"]["resourceVersion"]);
  EXPECT_EQ(page.continue_token, dom["metadata"].value("continue", ""));
}

TEST(DecodeListPage, EqualsTheDomPath) {
  expect_same_as_dom(page_text(5, "tok"), FieldProjection());
  expect_same_as_dom(page_text(5, "", 2), FieldProjection());  // pretty-printed
  expect_same_as_dom(page_text(3, ""), FieldProjection({"spec.nodeName", "status.phase"}));
  expect_same_as_dom(page_text(0, ""), FieldProjection());
}

TEST(DecodeListPage, ProjectionAppliesToEveryItem) {
  ListPage page;
  ASSERT_TRUE(decode_list_page(page_text(2, ""), FieldProjection({"spec.nodeName"}), page));
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.items[1]->object()["spec"], json({{"nodeName", "n1"}}));
  EXPECT_FALSE(page.items[1]->object().contains("status"));
}

TEST(DecodeListPage, AppendsToItemsOfEarlierPages) {
  ListPage page;
  ASSERT_TRUE(decode_list_page(page_text(2, "next"), FieldProjection(), page));
  EXPECT_EQ(page.continue_token, "next");
  page.continue_token.clear();
  ASSERT_TRUE(decode_list_page(page_text(3, ""), FieldProjection(), page));
  EXPECT_EQ(page.items.size(), 5u);
  EXPECT_EQ(page.continue_token, "");
}

TEST(DecodeListPage, MissingOrNullItemsIsAnEmptyPage) {
  ListPage page;
  ASSERT_TRUE(decode_list_page(R"({"metadata":{"resourceVersion":"9"},"items":null})", FieldProjection(), page));
  EXPECT_TRUE(page.items.empty());
  EXPECT_EQ(page.resource_version, "9");
  ASSERT_TRUE(decode_list_page(R"({"kind":"PodList"})", FieldProjection(), page));
}

TEST(DecodeListPage, RejectsBrokenPagesAndSaysWhere) {
  std::string error;
  ListPage page;
  EXPECT_FALSE(decode_list_page("[]", FieldProjection(), page, &error));
  EXPECT_FALSE(decode_list_page(R"({"items":[{"metadata":{}}, 5]})", FieldProjection(), page, &error));
  EXPECT_NE(error.find("items[1]"), std::string::npos) << error;
  EXPECT_FALSE(decode_list_page(R"({"items":[{"metadata":{}}])", FieldProjection(), page, &error));
  EXPECT_FALSE(decode_list_page(R"({"items":[]} x)", FieldProjection(), page, &error));
  EXPECT_FALSE(decode_list_page("", FieldProjection(), page, &error));
}

}  // namespace
}  // namespace dgd::runtime
