// Pacing of progress-only status writes, per DGD and for the fleet, on a fake clock.
#include "dgd/reconcile/status_pacing.h"

#include <gtest/gtest.h>

namespace dgd::reconcile {
namespace {

using std::chrono::milliseconds;

TEST(StatusPacer, AFirstWriteNeverWaits) {
  kube::FakeClock clock;
  StatusPacer pacer({milliseconds(5000), 2}, clock);
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(0));
}

TEST(StatusPacer, ProgressWaitsForTheIntervalWhichDoublesAndATransitionResetsIt) {
  kube::FakeClock clock;
  StatusPacer pacer({milliseconds(1000), 0}, clock);
  pacer.note_write("ns/g", /*transition=*/true);
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(1000));
  clock.advance(milliseconds(400));
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(600));
  clock.advance(milliseconds(600));
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(0));
  pacer.note_write("ns/g", /*transition=*/false);
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(2000));
  pacer.note_write("ns/g", /*transition=*/false);
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(4000));
  pacer.note_write("ns/g", /*transition=*/true);
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(1000));
}

TEST(StatusPacer, TheIntervalStopsDoublingAtOneMinute) {
  kube::FakeClock clock;
  StatusPacer pacer({milliseconds(1000), 0}, clock);
  for (int i = 0; i < 20; ++i) pacer.note_write("ns/g", false);
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(60000));
}

TEST(StatusPacer, TheFleetTakesSlotsOneOverQpsApartAndASlotIsKeptUntilUsed) {
  kube::FakeClock clock;
  StatusPacer pacer({milliseconds(10), 0.5}, clock);
  for (const char* k : {"ns/a", "ns/b", "ns/c"}) pacer.note_write(k, true);
  clock.advance(milliseconds(10));
  EXPECT_EQ(pacer.progress_delay("ns/a"), milliseconds(0));
  EXPECT_EQ(pacer.progress_delay("ns/b"), milliseconds(2000));
  EXPECT_EQ(pacer.progress_delay("ns/c"), milliseconds(4000));
  // Asked again, b keeps its slot rather than taking a later one.
  clock.advance(milliseconds(500));
  EXPECT_EQ(pacer.progress_delay("ns/b"), milliseconds(1500));
}

TEST(StatusPacer, ZeroIntervalWritesEveryChangeAtOnceAndForgetDropsADgd) {
  kube::FakeClock clock;
  StatusPacer eager({milliseconds(0), 2}, clock);
  eager.note_write("ns/g", false);
  EXPECT_EQ(eager.progress_delay("ns/g"), milliseconds(0));
  StatusPacer pacer({milliseconds(1000), 0}, clock);
  pacer.note_write("ns/g", true);
  pacer.forget("ns/g");
  EXPECT_EQ(pacer.progress_delay("ns/g"), milliseconds(0));
}

}  // namespace
}  // namespace dgd::reconcile
