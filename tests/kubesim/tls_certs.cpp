#include "kubesim/tls_certs.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>

#include <memory>
#include <stdexcept>

namespace kubesim {

namespace {

[[noreturn]] void fail(const std::string& what) {
  char buf[256];
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  throw std::runtime_error("kube-sim TLS: " + what + ": " + buf);
}

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

Key new_key() {
  EVP_PKEY* k = EVP_EC_gen("P-256");
  if (!k) fail("key generation");
  return Key(k, EVP_PKEY_free);
}

std::string pem_key(EVP_PKEY* k) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  if (!PEM_write_bio_PrivateKey(bio.get(), k, nullptr, nullptr, 0, nullptr, nullptr)) fail("key PEM");
  char* data;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string pem_cert(X509* c) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  if (!PEM_write_bio_X509(bio.get(), c)) fail("cert PEM");
  char* data;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

void add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) fail("extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

Cert make_cert(EVP_PKEY* key, const std::string& cn, const std::vector<std::string>& orgs, X509* issuer) {
  Cert c(X509_new(), X509_free);
  X509_set_version(c.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7F;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(c.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(c.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(c.get()), 365L * 24 * 3600);
  X509_set_pubkey(c.get(), key);
  X509_NAME* name = X509_get_subject_name(c.get());
  for (const auto& o : orgs)
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(c.get(), issuer ? X509_get_subject_name(issuer) : name);
  return c;
}

}  // namespace

Pki generate_pki(const std::vector<std::string>& sans) {
  Pki pki;
  Key ca_key = new_key();
  Cert ca = make_cert(ca_key.get(), "kube-sim-ca", {}, nullptr);
  add_ext(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_ext(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  add_ext(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  if (!X509_sign(ca.get(), ca_key.get(), EVP_sha256())) fail("sign CA");

  Key srv_key = new_key();
  Cert srv = make_cert(srv_key.get(), "kube-sim", {}, ca.get());
  std::string alt;
  for (const auto& s : sans) {
    std::string entry = s;
    if (s.rfind("DNS:", 0) != 0 && s.rfind("IP:", 0) != 0) {
      unsigned char buf[16];
      bool ip = inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
      entry = (ip ? "IP:" : "DNS:") + s;
    }
    alt += (alt.empty() ? "" : ",") + entry;
  }
  add_ext(srv.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_ext(srv.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
  add_ext(srv.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  if (!alt.empty()) add_ext(srv.get(), ca.get(), NID_subject_alt_name, alt);
  if (!X509_sign(srv.get(), ca_key.get(), EVP_sha256())) fail("sign server cert");

  Key cli_key = new_key();
  Cert cli = make_cert(cli_key.get(), "kube-sim-admin", {"system:masters"}, ca.get());
  add_ext(cli.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_ext(cli.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
  add_ext(cli.get(), ca.get(), NID_ext_key_usage, "clientAuth");
  if (!X509_sign(cli.get(), ca_key.get(), EVP_sha256())) fail("sign client cert");

  pki.ca_cert = pem_cert(ca.get());
  pki.ca_key = pem_key(ca_key.get());
  pki.server_cert = pem_cert(srv.get());
  pki.server_key = pem_key(srv_key.get());
  pki.client_cert = pem_cert(cli.get());
  pki.client_key = pem_key(cli_key.get());
  return pki;
}

std::pair<std::string, std::vector<std::string>> certificate_subject(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  Cert c(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
  if (!c) fail("read certificate");
  std::string cn;
  std::vector<std::string> orgs;
  X509_NAME* name = X509_get_subject_name(c.get());
  for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
    X509_NAME_ENTRY* e = X509_NAME_get_entry(name, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
    if (len < 0) continue;
    std::string v(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
    OPENSSL_free(utf8);
    if (nid == NID_commonName) cn = v;
    if (nid == NID_organizationName) orgs.push_back(v);
  }
  return {cn, orgs};
}

}  // namespace kubesim
