// The pieces of kube-sim's validation that clients see verbatim: resource.ParseQuantity's
// accept/refuse decisions and error texts, Go's %q and %#v printing of values, and the
// messages of apimachinery's format checks.
#include "kubesim/cluster/quantity.h"
#include "kubesim/validation/field_errors.h"
#include "kubesim/validation/formats.h"

#include <gtest/gtest.h>

namespace kubesim {
namespace {

using nlohmann::json;

const char* const kFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const char* const kSuffix = "unable to parse quantity's suffix";

TEST(QuantityProblem, AcceptsWhatParseQuantityAccepts) {
  for (const char* q : {"1", "0", "500m", "1.5", "1.", ".5", "1Ki", "2Gi", "1e3", "1E-3", "129e6", "-1", "+2",
                        "1n", "1u", "3k", "4M", "5T", "6P", "7E", "-", ".", "+"})
    EXPECT_EQ(cluster::quantity_problem(q), "") << q;
}

TEST(QuantityProblem, RefusesInTheDecodersWords) {
  for (const char* q : {"", "lots", "1.2.3", "1 Gi", "1Gi ", "0x10", "1e3x", "1KiB"})
    EXPECT_EQ(cluster::quantity_problem(q), kFormatWrong) << q;
  for (const char* q : {"192i", "1e", "1Ki2", "1mm", "1e+"})
    EXPECT_EQ(cluster::quantity_problem(q), kSuffix) << q;
}

TEST(GoPrinting, QuoteMapsSelectorsAndIntOrString) {
  EXPECT_EQ(validation::go_quote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\x01\"");
  EXPECT_EQ(validation::go_quote("ü"), "\"ü\"");
  EXPECT_EQ(validation::go_quote(std::string("\xff")), "\"\\xff\"");
  EXPECT_EQ(validation::go_map(json()), "map[string]string(nil)");
  EXPECT_EQ(validation::go_map(json::object()), "map[string]string{}");
  EXPECT_EQ(validation::go_map({{"tier", "a"}, {"app", "b"}}), "map[string]string{\"app\":\"b\", \"tier\":\"a\"}");
  EXPECT_EQ(validation::go_label_selector({{"matchLabels", {{"a", "b"}}}}),
            "v1.LabelSelector{MatchLabels:map[string]string{\"a\":\"b\"}, "
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}");
  EXPECT_EQ(validation::go_int_or_string(json(0)), "intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}");
  EXPECT_EQ(validation::go_int_or_string(json("25%")), "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"25%\"}");
}

TEST(ErrorList, BodiesAsErrorBodyPrintsThem) {
  validation::ErrorList errs;
  errs.required("spec.a");
  errs.required("spec.b", "must be set");
  errs.invalid("spec.c", "-1", "must be greater than or equal to 0");
  errs.not_supported("spec.d", "\"x\"", {"A", "B"});
  errs.forbidden("spec.e", "nope");
  errs.duplicate("spec.f", "\"n\"");
  errs.not_found("spec.g", "\"v\"");
  errs.too_long("metadata.annotations", 262144);
  const json want = json::array(
      {{{"reason", "FieldValueRequired"}, {"field", "spec.a"}, {"message", "Required value"}},
       {{"reason", "FieldValueRequired"}, {"field", "spec.b"}, {"message", "Required value: must be set"}},
       {{"reason", "FieldValueInvalid"}, {"field", "spec.c"},
        {"message", "Invalid value: -1: must be greater than or equal to 0"}},
       {{"reason", "FieldValueNotSupported"}, {"field", "spec.d"},
        {"message", "Unsupported value: \"x\": supported values: \"A\", \"B\""}},
       {{"reason", "FieldValueForbidden"}, {"field", "spec.e"}, {"message", "Forbidden: nope"}},
       {{"reason", "FieldValueDuplicate"}, {"field", "spec.f"}, {"message", "Duplicate value: \"n\""}},
       {{"reason", "FieldValueNotFound"}, {"field", "spec.g"}, {"message", "Not found: \"v\""}},
       {{"reason", "FieldValueTooLong"}, {"field", "metadata.annotations"},
        {"message", "Too long: must have at most 262144 bytes"}}});
  EXPECT_EQ(errs.causes(), want);
}

TEST(Formats, MessagesOfTheIsChecks) {
  using validation::Messages;
  EXPECT_EQ(validation::is_dns1123_label("a.b"), Messages{"must not contain dots"});
  EXPECT_EQ(validation::is_dns1123_subdomain(std::string(254, 'a')), Messages{"must be no more than 253 characters"});
  EXPECT_EQ(validation::is_qualified_name("/x"), Messages{"prefix part must be non-empty"});
  EXPECT_EQ(validation::is_qualified_name("Example.com/x").size(), 1u);
  EXPECT_EQ(validation::is_qualified_name("Example.com/x")[0].rfind("prefix part a lowercase RFC 1123 subdomain", 0), 0u);
  EXPECT_EQ(validation::is_relaxed_env_var_name("1 a.b-c"), Messages{});
  EXPECT_EQ(validation::is_relaxed_env_var_name("caf\xc3\xa9").size(), 1u);
  EXPECT_EQ(validation::is_valid_port_name("-ab--"),
            (Messages{"must not contain consecutive hyphens", "must not begin or end with a hyphen"}));
  EXPECT_EQ(validation::is_valid_port_name("1234"), Messages{"must contain at least one letter (a-z)"});
  EXPECT_EQ(validation::is_config_map_key(".."), (Messages{"must not be '..'"}));
  // generateName: a trailing '-' is fine as a prefix, not as a name.
  EXPECT_TRUE(validation::name_messages(validation::NameRule::dns1123_subdomain, "web-", true).empty());
  EXPECT_FALSE(validation::name_messages(validation::NameRule::dns1123_subdomain, "web-", false).empty());
  EXPECT_EQ(validation::name_messages(validation::NameRule::path_segment, "..", false), Messages{"may not be '..'"});
}

}  // namespace
}  // namespace kubesim
