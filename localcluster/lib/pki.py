"""The local cluster's certificates and keys, made with Debian's python3-cryptography.

One CA signs the API server's serving certificate and every client certificate; the API
server trusts client certificates of that CA (--client-ca-file), so a certificate's CN is
the user and its O the groups, as on a kubeadm cluster. ECDSA P-256 keys: they are made in
milliseconds, where RSA keys would make every start of the cluster seconds slower.

    pki = Pki(dir)
    pki.issue_server("apiserver", hosts=["127.0.0.1", "localhost"])   # dir/apiserver.{crt,key}
    pki.issue_client("admin", user="kubernetes-admin", groups=["system:masters"])
    pki.service_account_key()                                          # dir/sa.key, dir/sa.pub
"""
import datetime
import ipaddress
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALIDITY = datetime.timedelta(days=365)


def _write(path, data, private=False):
    with open(path, "wb") as f:
        f.write(data)
    if private:
        os.chmod(path, 0o600)


def key_pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def subject_alt_names(hosts):
    names = []
    for h in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            names.append(x509.DNSName(h))
    return x509.SubjectAlternativeName(names)


class Pki:
    def __init__(self, directory, ca_name="dgd-local-cluster-ca"):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ca_name)])
        self.ca_cert = (x509.CertificateBuilder()
                        .subject_name(name).issuer_name(name)
                        .public_key(self.ca_key.public_key())
                        .serial_number(x509.random_serial_number())
                        .not_valid_before(now - datetime.timedelta(minutes=5))
                        .not_valid_after(now + VALIDITY)
                        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                     content_commitment=False, key_encipherment=False,
                                                     data_encipherment=False, key_agreement=False,
                                                     encipher_only=False, decipher_only=False), critical=True)
                        .sign(self.ca_key, hashes.SHA256()))
        self.ca_path = self.path("ca.crt")
        self.ca_key_path = self.path("ca.key")
        _write(self.ca_path, self.ca_cert.public_bytes(serialization.Encoding.PEM))
        _write(self.ca_key_path, key_pem(self.ca_key), private=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def _issue(self, name, subject, usage, hosts=None):
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        builder = (x509.CertificateBuilder()
                   .subject_name(subject).issuer_name(self.ca_cert.subject)
                   .public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + VALIDITY)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.ExtendedKeyUsage(usage), critical=False))
        if hosts:
            builder = builder.add_extension(subject_alt_names(hosts), critical=False)
        cert = builder.sign(self.ca_key, hashes.SHA256())
        crt, key_path = self.path(name + ".crt"), self.path(name + ".key")
        _write(crt, cert.public_bytes(serialization.Encoding.PEM))
        _write(key_path, key_pem(key), private=True)
        return crt, key_path

    def issue_server(self, name, hosts):
        """A serving certificate for `hosts` (IP addresses and DNS names)."""
        return self._issue(name, x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])]),
                           [ExtendedKeyUsageOID.SERVER_AUTH], hosts)

    def issue_client(self, name, user, groups=()):
        """A client certificate: the API server reads CN as the user name, O as the groups."""
        attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups]
        attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, user))
        return self._issue(name, x509.Name(attrs), [ExtendedKeyUsageOID.CLIENT_AUTH])

    def service_account_key(self):
        """The key pair that signs and verifies ServiceAccount tokens (ES256)."""
        key = ec.generate_private_key(ec.SECP256R1())
        priv, pub = self.path("sa.key"), self.path("sa.pub")
        _write(priv, key_pem(key), private=True)
        _write(pub, key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo))
        return priv, pub
