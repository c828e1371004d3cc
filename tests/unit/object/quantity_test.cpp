// Canonical forms are those of apimachinery's resource.Quantity
// (pkg/api/resource/quantity_test.go: TestQuantityParse, TestQuantityString
// alternates, TestQuantityParseEmit), plus the values this project writes.
#include "dgd/object/quantity.h"

#include <gtest/gtest.h>

#include "dgd/object/field_schema.h"

namespace dgd::object {
namespace {

using nlohmann::json;

struct Canonical {
  const char* in;
  const char* out;
};

void PrintTo(const Canonical& c, std::ostream* os) { *os << c.in << " -> " << c.out; }

class QuantityCanonical : public ::testing::TestWithParam<Canonical> {};

TEST_P(QuantityCanonical, ParsesToUpstreamCanonicalString) {
  auto q = Quantity::parse(GetParam().in);
  ASSERT_TRUE(q.has_value()) << GetParam().in;
  EXPECT_EQ(q->to_string(), GetParam().out) << GetParam().in;
  // Canonical strings are fixed points, and negation only adds a sign.
  auto again = Quantity::parse(q->to_string());
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->to_string(), GetParam().out);
  if (!q->is_zero() && GetParam().in[0] != '+') {
    auto neg = Quantity::parse(std::string("-") + GetParam().in);
    ASSERT_TRUE(neg.has_value());
    EXPECT_EQ(neg->to_string(), std::string("-") + GetParam().out);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, QuantityCanonical,
    ::testing::Values(
        // The brief's and the project's values.
        Canonical{"1000m", "1"}, Canonical{"0.5", "500m"}, Canonical{"1Gi", "1Gi"}, Canonical{"1024Mi", "1Gi"},
        Canonical{"16Gi", "16Gi"}, Canonical{"200Gi", "200Gi"}, Canonical{"4", "4"}, Canonical{"100M", "100M"},
        Canonical{"1.5Gi", "1536Mi"}, Canonical{"1000", "1k"}, Canonical{"+1", "1"}, Canonical{"250m", "250m"},
        // 1e3 keeps the decimal-exponent format (upstream TestQuantityString).
        Canonical{"1e3", "1e3"}, Canonical{"1E6", "1e6"}, Canonical{"12e6", "12e6"},
        // TestQuantityString alternates.
        Canonical{"307200Ki", "300Mi"}, Canonical{"1025024Mi", "1001Gi"}, Canonical{"1024Gi", "1Ti"},
        Canonical{"5000m", "5"}, Canonical{"1000M", "1G"}, Canonical{"0.001T", "1G"}, Canonical{"1000u", "1m"},
        Canonical{"1.08", "1080m"}, Canonical{"1080000000n", "1080m"}, Canonical{"1000E", "1e21"},
        Canonical{"5000E", "5e21"}, Canonical{"1000000E", "1e24"}, Canonical{".001e12", "1e9"},
        Canonical{"0.001e0", "1e-3"}, Canonical{"1000e-12", "1e-9"}, Canonical{"00", "0"}, Canonical{"1025", "1025"},
        // TestQuantityParseEmit.
        Canonical{"1Ki", "1Ki"}, Canonical{"1Mi", "1Mi"}, Canonical{".001Ki", "1024m"},
        Canonical{".000001Ki", "1024u"}, Canonical{".000000001Ki", "1024n"}, Canonical{".000000000001Ki", "2n"},
        // TestQuantityParse values, rendered: rounding up to nano, binary
        // falling back to decimal when fractional or below 1024.
        Canonical{"3.001n", "4n"}, Canonical{"1.1E-9", "2e-9"}, Canonical{"0.0000000001", "1n"},
        Canonical{"0.00000012345", "124n"}, Canonical{"0.9n", "1n"}, Canonical{"9Ei", "9223372036854775807"},
        Canonical{"12E", "12E"}, Canonical{"100.035Ki", "102435840m"}, Canonical{"0.5Mi", "512Ki"},
        Canonical{"0.05Gi", "53687091200m"}, Canonical{".0001k", "100m"}, Canonical{"1.", "1"},
        Canonical{"1.G", "1G"}, Canonical{"50k", "50k"}, Canonical{"40T", "40T"}, Canonical{"100.035k", "100035"},
        Canonical{"10.035M", "10035k"}, Canonical{"1.2e3", "1200"}, Canonical{"1.3E+6", "1300e3"},
        Canonical{"0.5e-1", "50e-3"}, Canonical{"8.1k", "8100"}, Canonical{"2.5P", "2500T"},
        Canonical{"1.01E", "1010P"}, Canonical{"0Gi", "0"}, Canonical{"0m", "0"}, Canonical{"1.5Ki", "1536"},
        Canonical{"1023Ki", "1023Ki"}, Canonical{"512", "512"}));

TEST(Quantity, RejectsWhatUpstreamRejects) {
  for (const char* bad : {"", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1",
                          "1 ", "1K", "1 Gi", "Gi1"}) {
    EXPECT_FALSE(Quantity::parse(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Quantity, ComparesByValueAcrossFormats) {
  auto q = [](const char* s) { return *Quantity::parse(s); };
  EXPECT_EQ(q("1Gi").compare(q("1073741824")), 0);
  EXPECT_EQ(q("1Gi"), q("1024Mi"));
  EXPECT_EQ(q("1"), q("1000m"));
  EXPECT_LT(q("50m").compare(q("100m")), 0);
  EXPECT_GT(q("10000T").compare(q("100Gi")), 0);
  EXPECT_LT(q("-1").compare(q("0")), 0);
  // Equal value but different canonical strings: 1Gi vs 1073741824.
  EXPECT_NE(q("1Gi").to_string(), q("1073741824").to_string());
}

TEST(Quantity, MilliAndIntegerValuesRoundUp) {
  EXPECT_EQ(Quantity::parse("250m")->milli_value(), 250);
  EXPECT_EQ(Quantity::parse("1.5")->value(), 2);
  EXPECT_EQ(Quantity::parse("1Ki")->value(), 1024);
  EXPECT_EQ(Quantity::parse("1n")->milli_value(), 1);
  EXPECT_EQ(Quantity::parse("8")->milli_value(), 8000);
}

TEST(Quantity, FormatIsKept) {
  EXPECT_EQ(Quantity::parse("1Gi")->format(), Quantity::Format::kBinarySI);
  EXPECT_EQ(Quantity::parse("1e3")->format(), Quantity::Format::kDecimalExponent);
  EXPECT_EQ(Quantity::parse("1k")->format(), Quantity::Format::kDecimalSI);
  // A binary value below one unit becomes decimal SI (upstream ParseQuantity).
  EXPECT_EQ(Quantity::parse("0.000000000001Ki")->format(), Quantity::Format::kDecimalSI);
}

TEST(CanonicalQuantity, AcceptsJsonNumbersLikeTheApiserver) {
  EXPECT_EQ(canonical_quantity(json(4)), "4");
  EXPECT_EQ(canonical_quantity(json(0.5)), "500m");
  EXPECT_EQ(canonical_quantity(json(1000)), "1k");
  EXPECT_EQ(canonical_quantity(json("1024Mi")), "1Gi");
  EXPECT_FALSE(canonical_quantity(json("four")).has_value());
  EXPECT_FALSE(canonical_quantity(json(true)).has_value());
  EXPECT_FALSE(canonical_quantity(json()).has_value());
}

TEST(CanonicalizeQuantities, RewritesDeploymentContainerResources) {
  json d = json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "labels": {"cpu": "1000m"}},
    "spec": {"replicas": 1, "template": {"spec": {
      "containers": [{"name": "main", "image": "x", "args": ["1000m"],
                      "resources": {"requests": {"cpu": "1000m", "memory": "1024Mi"},
                                    "limits": {"nvidia.com/gpu": 4, "memory": "1.5Gi"}}}],
      "initContainers": [{"name": "init", "resources": {"limits": {"cpu": "0.5"}}}],
      "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16384Mi"}}]}}}})");
  canonicalize_quantities(d, *builtin_schema("apps", "Deployment"));
  const json& pod = d["spec"]["template"]["spec"];
  EXPECT_EQ(pod["containers"][0]["resources"]["requests"]["cpu"], "1");
  EXPECT_EQ(pod["containers"][0]["resources"]["requests"]["memory"], "1Gi");
  EXPECT_EQ(pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "4");
  EXPECT_EQ(pod["containers"][0]["resources"]["limits"]["memory"], "1536Mi");
  EXPECT_EQ(pod["initContainers"][0]["resources"]["limits"]["cpu"], "500m");
  EXPECT_EQ(pod["volumes"][0]["emptyDir"]["sizeLimit"], "16Gi");
  // Non-quantity fields with quantity-looking strings are untouched.
  EXPECT_EQ(pod["containers"][0]["args"][0], "1000m");
  EXPECT_EQ(d["metadata"]["labels"]["cpu"], "1000m");
  EXPECT_EQ(d["spec"]["replicas"], 1);
}

TEST(CanonicalizeQuantities, RewritesPvcStorageRequest) {
  json pvc = {{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"spec", {{"resources", {{"requests", {{"storage", "204800Mi"}}}}}}}};
  canonicalize_quantities(pvc, *builtin_schema("", "PersistentVolumeClaim"));
  EXPECT_EQ(pvc["spec"]["resources"]["requests"]["storage"], "200Gi");
}

TEST(CanonicalizeQuantities, BadValueNamesItsPath) {
  json pod_spec = {{"containers", {{{"name", "c"}, {"resources", {{"limits", {{"cpu", "two"}}}}}}}}};
  try {
    canonicalize_resources(pod_spec);
    FAIL() << "expected QuantityError";
  } catch (const QuantityError& e) {
    EXPECT_EQ(e.path(), ".containers[0].resources.limits.cpu");
    EXPECT_NE(std::string(e.what()).find("quantities must match the regular expression"), std::string::npos);
  }
}

TEST(CanonicalizeQuantities, PodSpecOverheadAndNullsAreHandled) {
  json pod_spec = {{"overhead", {{"cpu", "100m"}, {"memory", "1024Ki"}}},
                   {"containers", {{{"name", "c"}, {"resources", {{"limits", nullptr}}}}}}};
  canonicalize_resources(pod_spec);
  EXPECT_EQ(pod_spec["overhead"]["memory"], "1Mi");
  EXPECT_EQ(pod_spec["overhead"]["cpu"], "100m");
  EXPECT_TRUE(pod_spec["containers"][0]["resources"]["limits"].is_null());
}

}  // namespace
}  // namespace dgd::object
