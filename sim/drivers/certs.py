"""Certificates for a locked Dask cluster (mutual TLS): a certificate authority of the cluster's
own and, signed by it, a certificate and key for the scheduler, the workers and the clients.

Dask (``distributed.security.Security``) verifies both ends of every connection against the CA:
a host without a certificate the CA signed can reach the scheduler's port but not talk to it.
Host names are not checked (Dask turns that off: a cluster's own CA, addresses often IPs), so one
worker certificate serves every worker machine. Made with the ``cryptography`` package (the
``cluster`` extra).
"""

import datetime
import os
from pathlib import Path

__all__ = ["ROLES", "FILES", "make_certificates", "certificate_paths"]

ROLES = ("scheduler", "worker", "client")
# the files a folder holds; ca-key.pem signs new certificates and belongs on no cluster machine
FILES = ("ca.pem", "ca-key.pem", *(f"{role}{suffix}" for role in ROLES for suffix in (".pem", "-key.pem")))


def _key():
    from cryptography.hazmat.primitives.asymmetric import ec
    return ec.generate_private_key(ec.SECP256R1())


def _name(common_name):
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "hwmovegen cluster"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_certificates(folder, days=365, name="hwmovegen"):
    """Write :data:`FILES` into ``folder`` (made if missing; none of them may exist): the CA's,
    valid ``days`` days, named ``name``, and each role's. Keys are readable by their owner only.
    Returns the paths written."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import ExtendedKeyUsageOID
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"cannot write {folder}: it is a file, not a folder")
    present = [file for file in FILES if (folder / file).exists()]
    if present:
        raise FileExistsError(f"{folder} already holds {', '.join(present)}: give an empty folder")
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=days)
    ca_key = _key()
    ca_name = _name(f"{name} cluster CA")
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    written = {}

    def write(file, data, secret=False):
        path = folder / file
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if secret else 0o644)
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
        written[file] = path

    def key_bytes(key):
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())

    write("ca.pem", ca.public_bytes(serialization.Encoding.PEM))
    write("ca-key.pem", key_bytes(ca_key), secret=True)
    for role in ROLES:
        key = _key()
        # every role both serves and connects (a worker listens, and dials the scheduler)
        certificate = (x509.CertificateBuilder().subject_name(_name(f"{name} {role}")).issuer_name(ca_name)
                       .public_key(key.public_key()).serial_number(x509.random_serial_number())
                       .not_valid_before(start).not_valid_after(end)
                       .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                       .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                             ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
                       .sign(ca_key, hashes.SHA256()))
        write(f"{role}.pem", certificate.public_bytes(serialization.Encoding.PEM))
        write(f"{role}-key.pem", key_bytes(key), secret=True)
    return written


def certificate_paths(folder, role="client"):
    """``(ca, cert, key)`` of ``role`` in a folder :func:`make_certificates` wrote; FileNotFoundError
    naming what is missing."""
    folder = Path(folder)
    paths = (folder / "ca.pem", folder / f"{role}.pem", folder / f"{role}-key.pem")
    missing = [path.name for path in paths if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"{folder} has no {', '.join(missing)} (make the certificates with "
                                f"'hwmovegen cluster certs {folder}')")
    return paths
