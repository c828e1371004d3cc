#include <gtest/gtest.h>

#include "common/prom_text.h"
#include "dgd/kube/metrics.h"

namespace dgd::kube {
namespace {

TEST(Metrics, RendersValidPrometheusText) {
  MetricsRegistry r;
  r.counter("a_total", "A counter\nwith a newline.", {{"x", "quote\"back\\slash"}}).inc(3);
  r.gauge("b", "A gauge.").set(-1.5);
  auto& h = r.histogram("c_seconds", "A histogram.", {{"k", "v"}}, {0.1, 1});
  h.observe(0.05);
  h.observe(0.5);
  h.observe(5);
  std::string text = r.render();
  std::vector<testing::PromSample> samples;
  ASSERT_EQ(testing::check_prometheus_text(text, &samples), "") << text;
  EXPECT_NE(text.find("# HELP a_total A counter\\nwith a newline.\n"), std::string::npos) << text;
  EXPECT_NE(text.find("a_total{x=\"quote\\\"back\\\\slash\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("b -1.5\n"), std::string::npos);
  EXPECT_NE(text.find("c_seconds_bucket{k=\"v\",le=\"0.1\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("c_seconds_bucket{k=\"v\",le=\"1\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("c_seconds_bucket{k=\"v\",le=\"+Inf\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("c_seconds_count{k=\"v\"} 3\n"), std::string::npos);
}

TEST(Metrics, SameSeriesIsReturnedTwice) {
  MetricsRegistry r;
  Counter& a = r.counter("x_total", "h", {{"l", "1"}});
  Counter& b = r.counter("x_total", "h", {{"l", "1"}});
  EXPECT_EQ(&a, &b);
  EXPECT_THROW(r.gauge("x_total", "h"), std::logic_error);
}

TEST(PromTextChecker, CatchesBrokenExposition) {
  EXPECT_NE(testing::check_prometheus_text("x 1\n"), "") << "no TYPE";
  EXPECT_NE(testing::check_prometheus_text("# TYPE x counter\nx{a=\"1} 1\n"), "");
  EXPECT_NE(testing::check_prometheus_text("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n"), "");
  EXPECT_NE(testing::check_prometheus_text("# TYPE x counter\nx 1"), "") << "missing final newline";
  EXPECT_EQ(testing::check_prometheus_text("# TYPE x counter\nx 1\n"), "");
}

}  // namespace
}  // namespace dgd::kube
