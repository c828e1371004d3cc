// JsonScanner against nlohmann::json as the reference: same verdict on valid and invalid
// text (hand-picked edge cases plus seeded random mutations of a Kubernetes object), and
// the compact copy parses to the same value.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "dgd/kube/watch.h"
#include "dgd/kube/watch_scan.h"

namespace dgd::kube {
namespace {

using nlohmann::json;

// Scans one whole value; returns its compact copy, or nullopt if the text is invalid.
std::optional<std::string> scan(std::string_view text) {
  JsonScanner s(text);
  std::string out;
  if (!s.value(&out) || !s.at_end()) return std::nullopt;
  return out;
}

void expect_agrees(const std::string& text) {
  bool reference = json::accept(text);
  auto got = scan(text);
  ASSERT_EQ(got.has_value(), reference) << "text: " << text;
  if (got) {
    EXPECT_EQ(json::parse(*got), json::parse(text)) << text;
    EXPECT_EQ(got->find('\n'), std::string::npos);
  }
}

const char* const kCases[] = {
    "{}", "[]", "0", "-0", "1.5e10", "-1.25E-3", "\"\"", "true", "false", "null", " { \"a\" : [ 1 , 2 ] } ",
    "{\"a\":{\"b\":[{\"c\":\"d\"}]}}", "\"\\u00e9\\n\\t\\\"\\\\\\/\"", "\"\\ud83d\\ude00\"", "\"caf\xc3\xa9\"",
    "\"\xf0\x9f\x98\x80\"",
    // invalid
    "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{,}", "[,1]", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{1:2}", "01", "1.",
    ".5", "-", "1e", "+1", "tru", "nul", "True", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"",
    "\"\\ud83d\\u0041\"", "\"a\x01\"", "\"\xc3\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf5\x80\x80\x80\"",
    "\"\xff\"", "[1] [2]", "{} x", "[\"a\"\"b\"]", "NaN", "[1,,2]"};

TEST(JsonScanner, AgreesWithNlohmannOnEdgeCases) {
  for (const char* c : kCases) expect_agrees(c);
}

TEST(JsonScanner, AgreesWithNlohmannOnMutatedObjects) {
  const std::string base =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w-0","namespace":"n","uid":"u-1",)"
      R"("resourceVersion":"12","labels":{"a":"b"},"annotations":{"x":"caf\u00e9"},"ownerReferences":[{"uid":"o",)"
      R"("controller":true}]},"spec":{"replicas":2,"ratio":-1.5e-3,"paused":false,"x":null,"args":["--a","b c"]}})";
  const std::string alphabet = "{}[],:\"\\u0123456789.eE+-tfn \t\n\x80\xc3\xa9\xff\xed";
  std::mt19937 rng(1234);
  for (int i = 0; i < 20000; ++i) {
    std::string t = base;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: t.erase(at, 1); break;
        default: t.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    expect_agrees(t);
    if (HasFatalFailure()) return;
  }
}

TEST(JsonScanner, CompactsWhitespaceOutsideStringsOnly) {
  EXPECT_EQ(scan("{ \"a b\" : [ 1 ,\n \"c  d\" ] }").value(), "{\"a b\":[1,\"c  d\"]}");
}

TEST(JsonScanner, ReadsDeepNestingWithoutRecursion) {
  // A frame of 100,000 nested arrays would overflow the stack of a recursive reader.
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  EXPECT_TRUE(scan(deep).has_value());
  deep.pop_back();
  EXPECT_FALSE(scan(deep).has_value());
}

TEST(JsonScanner, RejectsNumbersThatOverflowADouble) {
  expect_agrees("[1e400]");
  expect_agrees("[-1.8e308]");
  expect_agrees("[1e-400]");
  expect_agrees("[" + std::string(310, '9') + "]");
  expect_agrees("[" + std::string(300, '9') + "]");
}

TEST(JsonScanner, IteratesMembersAndDecodesStrings) {
  JsonScanner s(R"({"a":"x\u00e9\n","b":[1,{"c":true}],"d":{}})");
  std::string_view key;
  std::vector<std::string> keys;
  std::string a;
  ASSERT_TRUE(s.begin_object());
  while (s.next_member(key)) {
    keys.emplace_back(key);
    if (key == "a") s.string_value(a);
    else s.value();
  }
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b", "d"}));
  EXPECT_EQ(a, "x\xc3\xa9\n");
}

TEST(DecodeWatchEvent, KeepsTheObjectTextAndFindsTheResourceVersion) {
  auto ev = decode_watch_event(R"({"object":{"metadata":{"name":"a","resourceVersion":"42"},"data":{"k":"v"}},"type":"MODIFIED"})");
  ASSERT_TRUE(ev.ok()) << ev.error().to_string();
  EXPECT_EQ(ev->type, WatchEventType::kModified);
  EXPECT_EQ(ev->resource_version(), "42");
  EXPECT_EQ(ev->object()["data"]["k"], "v");
  EXPECT_EQ(ev->object_text, R"({"metadata":{"name":"a","resourceVersion":"42"},"data":{"k":"v"}})");
}

TEST(DecodeWatchEvent, RejectsAFrameWithInvalidJsonAnywhere) {
  // The object is fine; a later member is not: the frame is still corrupt.
  auto ev = decode_watch_event(R"({"type":"ADDED","object":{"metadata":{}},"x":[1,]})");
  ASSERT_FALSE(ev.ok());
  EXPECT_EQ(ev.error().kind, ErrorKind::kDecode);
  EXPECT_FALSE(decode_watch_event(R"({"type":"ADDED","object":[]})").ok());
  EXPECT_FALSE(decode_watch_event(R"({"type":"ADDED","object":{}} trailing)").ok());
}

TEST(DecodeWatchEvent, ReadsLikeADomOnDuplicateKeysAndAByteOrderMark) {
  auto ev = decode_watch_event(
      "\xEF\xBB\xBF{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\"},"
      "\"metadata\":{\"resourceVersion\":\"2\",\"resourceVersion\":\"3\"}},\"type\":\"DELETED\"}");
  ASSERT_TRUE(ev.ok()) << ev.error().to_string();
  EXPECT_EQ(ev->type, WatchEventType::kDeleted) << "the last type wins";
  EXPECT_EQ(ev->resource_version(), "3") << "the last metadata, and its last resourceVersion, win";
  auto odd = decode_watch_event(R"({"type":"ADDED","object":{"metadata":{"resourceVersion":"1","resourceVersion":5}}})");
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->resource_version(), "");
  auto escaped = decode_watch_event(R"({"typ\u0065":"ADDED","object":{"m\u0065tadata":{"resourceV\u0065rsion":"9"}}})");
  ASSERT_TRUE(escaped.ok()) << "keys are compared decoded";
  EXPECT_EQ(escaped->resource_version(), "9");
}

}  // namespace
}  // namespace dgd::kube
