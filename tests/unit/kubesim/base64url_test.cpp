// kube-sim's token alphabet: RFC 4648 §5 (URL alphabet, no padding).
#include "kubesim/base64url.h"

#include <gtest/gtest.h>

#include "dgd/kube/base64.h"

namespace kubesim {
namespace {

TEST(Base64Url, EncodesRfc4648VectorsWithoutPaddingAndRoundTrips) {
  const char* plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char* unpadded[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(base64url_encode(plain[i]), unpadded[i]);
  EXPECT_EQ(base64url_encode("\xfb\xff\xbf"), "-_-_");
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string encoded = base64url_encode(all);
  EXPECT_EQ(encoded.find_first_of("+/="), std::string::npos);
  EXPECT_EQ(*dgd::kube::base64_decode(encoded), all);
}

}  // namespace
}  // namespace kubesim
