// The download Jobs shared by several DGDs: one creator, and the users a Job's event wakes.
#include "dgd/reconcile/shared_download.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

TEST(SharedDownloads, TheFirstClaimCreatesTheOthersWaitThenUseWhatItCreated) {
  kube::FakeClock clock;
  SharedDownloads downloads(clock);
  EXPECT_TRUE(downloads.claim("ns/job").mine);
  auto waiting = downloads.claim("ns/job");
  EXPECT_FALSE(waiting.mine);
  EXPECT_EQ(waiting.created, nullptr) << "in flight";
  const json job = {{"metadata", {{"name", "job"}}}};
  downloads.finish("ns/job", &job);
  auto after = downloads.claim("ns/job");
  EXPECT_FALSE(after.mine);
  ASSERT_NE(after.created, nullptr);
  EXPECT_EQ(*after.created, job);
  EXPECT_TRUE(downloads.claim("ns/other").mine) << "claims are per Job";
}

TEST(SharedDownloads, ACreateThatDidNotHappenOrAClaimPastItsAgeFreesIt) {
  kube::FakeClock clock;
  SharedDownloads downloads(clock, std::chrono::seconds(10));
  ASSERT_TRUE(downloads.claim("ns/job").mine);
  downloads.finish("ns/job", nullptr);
  EXPECT_TRUE(downloads.claim("ns/job").mine);
  clock.advance(std::chrono::seconds(9));
  EXPECT_FALSE(downloads.claim("ns/job").mine);
  clock.advance(std::chrono::seconds(1));
  EXPECT_TRUE(downloads.claim("ns/job").mine) << "the pass that claimed it died";
}

TEST(SharedDownloads, UsersFollowTheirLatestPass) {
  SharedDownloads downloads;
  downloads.note_use("ns/g", "ns/a");
  downloads.note_use("ns/h", "ns/a");
  EXPECT_EQ(downloads.users_of("ns/a"), (std::vector<std::string>{"ns/g", "ns/h"}));
  downloads.note_use("ns/g", "ns/b");
  EXPECT_EQ(downloads.users_of("ns/a"), (std::vector<std::string>{"ns/h"}));
  EXPECT_EQ(downloads.users_of("ns/b"), (std::vector<std::string>{"ns/g"}));
  downloads.note_use("ns/h", "");
  EXPECT_TRUE(downloads.users_of("ns/a").empty());
}

}  // namespace
}  // namespace dgd::reconcile
