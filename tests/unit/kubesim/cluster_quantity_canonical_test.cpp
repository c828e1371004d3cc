// kube-sim's canonical quantities against apimachinery's own examples
// (resource/quantity_test.go: TestQuantityString's canonical and alternate forms,
// TestQuantityParseEmit, TestQuantityParse's invalid inputs).
#include "kubesim/cluster/quantity.h"

#include <gtest/gtest.h>

namespace kubesim::cluster {
namespace {

struct Case {
  const char* canonical;
  const char* alternate;  // another spelling of the same quantity, or ""
};

// TestQuantityString (Quantity.String() of each value, and ParseQuantity of the alternate).
const Case kQuantityString[] = {
    {"1Gi", "1024Mi"}, {"300Mi", "307200Ki"}, {"6Ki", ""},      {"1001Gi", "1025024Mi"}, {"1Ti", "1024Gi"},
    {"5", "5000m"},    {"500m", "0.5"},       {"1G", "1000M"},  {"1G", "0.001T"},        {"1m", "1000u"},
    {"80m", ""},       {"1080m", "1.08"},     {"1080m", "1080000000n"},                  {"300M", ""},
    {"1T", ""},        {"1234567M", ""},      {"1234567m", ""}, {"3k", ""},              {"1025", ""},
    {"0", ""},         {"1e9", ".001e12"},    {"1e-3", "0.001e0"},                       {"1e-9", "1000e-12"},
    {"80e-3", ""},     {"300e6", ""},         {"1e12", ""},     {"1e3", ""},             {"3e3", ""},
    {"0", "00"},       {"1n", ""},            {"80n", ""},      {"1080n", ""},           {"1u", ""},
    {"80u", ""},       {"1080u", ""},
};

TEST(CanonicalQuantity, UpstreamQuantityString) {
  for (const Case& c : kQuantityString) {
    EXPECT_EQ(canonical_quantity(c.canonical), c.canonical) << "canonical form must be kept";
    if (*c.alternate) {
      EXPECT_EQ(canonical_quantity(c.alternate), c.canonical) << c.alternate;
    }
    if (std::string(c.canonical) != "0") {
      EXPECT_EQ(canonical_quantity(std::string("-") + c.canonical), std::string("-") + c.canonical);
    }
  }
}

TEST(CanonicalQuantity, UpstreamParseEmit) {
  const std::pair<const char*, const char*> table[] = {
      {"1Ki", "1Ki"},         {"1Mi", "1Mi"},          {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},      {"1000M", "1G"},         {".001Ki", "1024m"},
      {".000001Ki", "1024u"}, {".000000001Ki", "1024n"}, {".000000000001Ki", "2n"},
  };
  for (const auto& [in, out] : table) {
    EXPECT_EQ(canonical_quantity(in), out) << in;
    EXPECT_EQ(canonical_quantity(std::string("-") + in), std::string("-") + out) << in;
  }
}

TEST(CanonicalQuantity, ValuesOperatorsWrite) {
  // What kubectl users and the operator write, as the server stores it.
  const std::pair<const char*, const char*> table[] = {
      {"1000m", "1"}, {"0.5", "500m"}, {"1.5Gi", "1536Mi"}, {"1000", "1k"}, {"+1", "1"}, {"4", "4"},
      {"16Gi", "16Gi"}, {"0.5Mi", "512Ki"}, {"1.5Ki", "1536"}, {"1.3E+6", "1300e3"}, {"0Gi", "0"},
  };
  for (const auto& [in, out] : table) EXPECT_EQ(canonical_quantity(in), out) << in;
}

TEST(CanonicalQuantity, RoundsUpToNanoAndCapsBinaryAtInt64) {
  EXPECT_EQ(canonical_quantity("0.0000000001"), "1n");
  EXPECT_EQ(canonical_quantity("-0.0000000001"), "-1n");
  EXPECT_EQ(canonical_quantity("3.001n"), "4n");
  // ParseQuantity caps binary-SI amounts at the int64 maximum.
  EXPECT_EQ(canonical_quantity("9Ei"), "9223372036854775807");
  EXPECT_EQ(canonical_quantity("7Ei"), "7Ei");
}

TEST(CanonicalQuantity, MilliValuesAreExactAndRoundUp) {
  // MilliValue rounds the nano amount up, whatever its size: no binary floating point.
  EXPECT_EQ(parse_milli("1.0000000001"), 1001);
  EXPECT_EQ(parse_milli("-1.0000000001"), -1001);
  EXPECT_EQ(parse_milli("0.0005"), 1);
  EXPECT_EQ(parse_milli("9223372036854775.807"), 9223372036854775807LL);
  EXPECT_EQ(parse_milli("9223372036854775.806"), 9223372036854775806LL);
  EXPECT_EQ(parse_milli("9223372036854776"), 9223372036854775807LL);  // saturates
  EXPECT_EQ(parse_milli("1e5000"), 9223372036854775807LL);
  EXPECT_EQ(scheduler_units("memory", "1.0000000001"), 2);
  // The grammar check words what ParseQuantity refuses.
  EXPECT_EQ(quantity_problem("1e2147483648"), "unable to parse quantity's suffix");
  EXPECT_EQ(quantity_problem("1Gi"), "");
}

TEST(CanonicalQuantity, RejectsWhatUpstreamRejects) {
  for (const char* bad : {"", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 ",
                          "1K", "1 Gi", "Gi1", "1e"}) {
    EXPECT_FALSE(canonical_quantity(bad).has_value()) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace kubesim::cluster
