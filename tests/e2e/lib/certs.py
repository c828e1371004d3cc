"""Certificates for TLS tests, made with the `cryptography` package (Debian's
python3-cryptography): a CA, and server certificates it signs for given host names and
validity, written as PEM files.

    ca = CertificateAuthority("trusted")
    ca.write(dir)                                     # dir/trusted-ca.crt
    ca.issue(dir, "server", hosts=["127.0.0.1"])      # dir/server.crt, dir/server.key
    ca.issue(dir, "old", hosts=["127.0.0.1"], expired=True)
"""
import datetime
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "localcluster", "lib"))
import pki  # noqa: E402  (the PEM and subject-alternative-name helpers the local cluster uses)


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


_pem_key = pki.key_pem
_san = pki.subject_alt_names


class CertificateAuthority:
    def __init__(self, name):
        self.name = name
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        self.cert = (x509.CertificateBuilder()
                     .subject_name(_name(name + " CA")).issuer_name(_name(name + " CA"))
                     .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(days=1))
                     .not_valid_after(now + datetime.timedelta(days=30))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                     .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                  content_commitment=False, key_encipherment=False,
                                                  data_encipherment=False, key_agreement=False,
                                                  encipher_only=False, decipher_only=False), critical=True)
                     .sign(self.key, hashes.SHA256()))

    def write(self, directory):
        """Writes <name>-ca.crt; returns its path."""
        path = os.path.join(directory, self.name + "-ca.crt")
        with open(path, "wb") as f:
            f.write(self.cert.public_bytes(serialization.Encoding.PEM))
        return path

    def issue(self, directory, name, hosts, expired=False):
        """A server certificate for `hosts` (DNS names or IP addresses), valid now, or
        expired a day ago; writes <name>.crt and <name>.key; returns (crt, key) paths."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        start, end = ((now - datetime.timedelta(days=30), now - datetime.timedelta(days=1)) if expired
                      else (now - datetime.timedelta(days=1), now + datetime.timedelta(days=30)))
        cert = (x509.CertificateBuilder()
                .subject_name(_name(hosts[0])).issuer_name(self.cert.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(end)
                .add_extension(_san(hosts), critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .sign(self.key, hashes.SHA256()))
        crt_path, key_path = os.path.join(directory, name + ".crt"), os.path.join(directory, name + ".key")
        with open(crt_path, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(key_path, "wb") as f:
            f.write(_pem_key(key))
        return crt_path, key_path
