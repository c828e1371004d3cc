#include <gtest/gtest.h>

#include <random>

#include "dgd/kube/watch.h"

namespace dgd::kube {
namespace {

std::vector<std::string> feed_in_pieces(const std::string& stream, const std::vector<size_t>& cuts) {
  LineFramer f;
  std::vector<std::string> lines;
  size_t prev = 0;
  for (size_t c : cuts) {
    EXPECT_TRUE(f.feed(std::string_view(stream).substr(prev, c - prev), [&](std::string_view l) { lines.emplace_back(l); }));
    prev = c;
  }
  EXPECT_TRUE(f.feed(std::string_view(stream).substr(prev), [&](std::string_view l) { lines.emplace_back(l); }));
  return lines;
}

const std::string kStream =
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"2\"}}}\r\n"
    "\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"7\"}}}\n";

TEST(LineFramer, EveryTwoWaySplitYieldsTheSameFrames) {
  for (size_t cut = 0; cut <= kStream.size(); ++cut) {
    auto lines = feed_in_pieces(kStream, {cut});
    ASSERT_EQ(lines.size(), 3u) << "cut at " << cut;
    EXPECT_EQ(lines[1].back(), '}') << "\\r must be stripped, cut at " << cut;
    EXPECT_TRUE(decode_watch_event(lines[2]).ok());
  }
}

TEST(LineFramer, RandomChunkingYieldsTheSameFrames) {
  std::string stream;
  for (int i = 0; i < 200; ++i) {
    stream += "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"o" + std::to_string(i) +
              "\",\"resourceVersion\":\"" + std::to_string(i) + "\"}}}\n";
  }
  std::mt19937 rng(42);
  for (int round = 0; round < 50; ++round) {
    std::vector<size_t> cuts;
    size_t pos = 0;
    while (true) {
      pos += std::uniform_int_distribution<size_t>(1, 97)(rng);
      if (pos >= stream.size()) break;
      cuts.push_back(pos);
    }
    auto lines = feed_in_pieces(stream, cuts);
    ASSERT_EQ(lines.size(), 200u);
    for (int i = 0; i < 200; ++i) {
      auto ev = decode_watch_event(lines[i]);
      ASSERT_TRUE(ev.ok());
      EXPECT_EQ(ev->resource_version(), std::to_string(i));
    }
  }
}

TEST(LineFramer, KeepsAnUnterminatedFramePending) {
  LineFramer f;
  int n = 0;
  EXPECT_TRUE(f.feed("{\"a\":1}\n{\"b\"", [&](std::string_view) { ++n; }));
  EXPECT_EQ(n, 1);
  EXPECT_EQ(f.pending(), "{\"b\"");
}

TEST(LineFramer, RejectsAFrameAboveTheLimit) {
  LineFramer f(16);
  int n = 0;
  EXPECT_TRUE(f.feed("0123456789", [&](std::string_view) { ++n; }));
  EXPECT_FALSE(f.feed("0123456789", [&](std::string_view) { ++n; }));
  EXPECT_EQ(n, 0);
  // After the failure it starts clean.
  EXPECT_TRUE(f.feed("ok\n", [&](std::string_view l) { EXPECT_EQ(l, "ok"); ++n; }));
  EXPECT_EQ(n, 1);
}

TEST(DecodeWatchEvent, DecodesEveryType) {
  struct Case { const char* type; WatchEventType want; };
  for (auto c : {Case{"ADDED", WatchEventType::kAdded}, Case{"MODIFIED", WatchEventType::kModified},
                 Case{"DELETED", WatchEventType::kDeleted}, Case{"BOOKMARK", WatchEventType::kBookmark},
                 Case{"ERROR", WatchEventType::kError}}) {
    auto ev = decode_watch_event(std::string("{\"type\":\"") + c.type + "\",\"object\":{\"metadata\":{}}}");
    ASSERT_TRUE(ev.ok()) << c.type;
    EXPECT_EQ(ev->type, c.want);
  }
}

TEST(DecodeWatchEvent, RejectsMalformedFrames) {
  for (const char* bad : {"not json", "[1]", "{\"object\":{}}", "{\"type\":\"ADDED\"}",
                          "{\"type\":\"WEIRD\",\"object\":{}}", "{\"type\":1,\"object\":{}}"}) {
    auto ev = decode_watch_event(bad);
    ASSERT_FALSE(ev.ok()) << bad;
    EXPECT_EQ(ev.error().kind, ErrorKind::kDecode);
  }
}

TEST(DecodeWatchEvent, ExpiredErrorEventIsGone) {
  auto ev = decode_watch_event(
      R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 657887 (680402)","reason":"Expired","code":410}})json");
  ASSERT_TRUE(ev.ok());
  Error e = ev->status_error("WATCH /api/v1/pods");
  EXPECT_EQ(e.kind, ErrorKind::kGone);
  EXPECT_EQ(e.code, 410);
  EXPECT_NE(e.to_string().find("too old resource version"), std::string::npos);
}

}  // namespace
}  // namespace dgd::kube
