"""`benchlab cluster certs DIR`: a private certificate authority and one certificate per party
of a cluster (scheduler, client, each machine), for Dask's mutual TLS (docs/cluster.md).

Made with the `cryptography` library (no hand-written cryptography): ECDSA P-256 keys, X.509
v3 certificates signed with SHA-256. The CA is the cluster's own: Dask accepts any party
whose certificate it signed (it checks the chain, not host names), so the CA's key is what
grants access to the cluster; it stays in DIR and is needed only to add parties later. Every
key file is created 0600 (never readable by other users, not even for an instant) and no
existing file is ever overwritten: running the command again on the same DIR adds the
parties that are missing, signed by the same CA.
"""

from __future__ import annotations

import datetime
import os
import re
from dataclasses import dataclass
from pathlib import Path

from benchlab.errors import UsageError

CA = "ca"  # DIR/ca.pem, DIR/ca.key
SCHEDULER = "scheduler"
CLIENT = "client"  # the driver: `benchlab run --cluster tls://...`
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")  # as `benchlab worker --machine`
DEFAULT_DAYS = 365


@dataclass(frozen=True)
class Made:
    """What `make` did: the files written and the parties already there (kept as they were)."""

    written: tuple[Path, ...]
    kept: tuple[str, ...]
    new_ca: bool


def make(directory: str | os.PathLike, machines: list[str], days: int = DEFAULT_DAYS) -> Made:
    """Make DIR/ca.pem and ca.key (unless both exist), then NAME.pem and NAME.key for the
    scheduler, the client and every machine that has none yet. UsageError on a bad name, a
    DIR that is not a directory, a half CA (one file of two) or an unreadable CA."""
    for m in machines:
        if not NAME.match(m):
            raise UsageError(f"--machine {m!r} is not a machine name (letters, digits, _ - and "
                             ".; not starting with - or .)")
        if m in (CA, SCHEDULER, CLIENT):
            raise UsageError(f"--machine {m!r}: the names {CA}, {SCHEDULER} and {CLIENT} are "
                             "taken by the CA, the scheduler and the client")
    if not 1 <= days <= 36500:
        raise UsageError("--days must be between 1 and 36500")
    try:
        import cryptography  # noqa: F401
    except ImportError:
        raise UsageError("benchlab cluster certs needs the cryptography library: python3 -m "
                         "pip install 'benchlab[cluster]'") from None
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root}: exists and is not a directory")
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{root}: cannot create the directory ({exc.strerror})") from None
    written: list[Path] = []
    ca_cert, ca_key = root / f"{CA}.pem", root / f"{CA}.key"
    new_ca = not ca_cert.exists() and not ca_key.exists()
    if new_ca:
        key = _new_key()
        cert = _certificate("benchlab cluster CA", key.public_key(), key, None, days, ca=True)
        written += _write(root, CA, cert, key)
    elif not (ca_cert.exists() and ca_key.exists()):
        have, lacks = (ca_cert, ca_key) if ca_cert.exists() else (ca_key, ca_cert)
        raise UsageError(f"{have} exists without {lacks.name}: remove it, or give another "
                         "directory")
    ca = _load_ca(ca_cert, ca_key)
    kept = []
    for name in (SCHEDULER, CLIENT, *dict.fromkeys(machines)):
        pem, key_file = root / f"{name}.pem", root / f"{name}.key"
        if pem.exists() and key_file.exists():
            kept.append(name)
            continue
        if pem.exists() or key_file.exists():
            have, lacks = (pem, key_file) if pem.exists() else (key_file, pem)
            raise UsageError(f"{have} exists without {lacks.name}: remove it and run again")
        key = _new_key()
        cert = _certificate(name, key.public_key(), ca[1], ca[0], days, ca=False)
        written += _write(root, name, cert, key)
    return Made(tuple(written), tuple(kept), new_ca)


def _new_key():
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1())


def _certificate(name: str, public_key, signing_key, issuer, days: int, *, ca: bool):
    """An X.509 certificate for `name` (self-signed when `issuer` is None): a CA that signs
    certificates only, or a party that may be both a TLS server and client (a worker listens
    for the scheduler and its peers, and connects to the scheduler)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "benchlab cluster"),
                         x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder()
               .subject_name(subject)
               .issuer_name(subject if issuer is None else issuer.subject)
               .public_key(public_key)
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))  # clocks a little apart
               .not_valid_after(now + datetime.timedelta(days=days))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None),
                              critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key),
                              critical=False))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(
            digital_signature=True, content_commitment=False, key_encipherment=False,
            data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
            encipher_only=False, decipher_only=False), critical=True)
    else:
        builder = (builder
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                       signing_key.public_key()), critical=False)
                   .add_extension(x509.KeyUsage(
                       digital_signature=True, content_commitment=False,
                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                       key_cert_sign=False, crl_sign=False, encipher_only=False,
                       decipher_only=False), critical=True)
                   .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                         ExtendedKeyUsageOID.CLIENT_AUTH]),
                                  critical=False)
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName(name.lower())]),
                                  critical=False))
    return builder.sign(signing_key, hashes.SHA256())


def _load_ca(cert_path: Path, key_path: Path):
    """The CA's certificate and key, to sign more parties; UsageError when unreadable."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except (OSError, ValueError) as exc:
        raise UsageError(f"{cert_path}: not a readable PEM certificate "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    try:
        key = load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise UsageError(f"{key_path}: not a readable, unencrypted PEM key "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    if (cert.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
            != key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)):
        raise UsageError(f"{key_path} is not the key of {cert_path}")
    return cert, key


def _write(root: Path, name: str, cert, key) -> list[Path]:
    """NAME.pem (0644) and NAME.key (0600), each created exclusively: never over a file."""
    from cryptography.hazmat.primitives import serialization

    key_bytes = key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())
    cert_bytes = cert.public_bytes(serialization.Encoding.PEM)
    out = []
    for path, data, mode in ((root / f"{name}.key", key_bytes, 0o600),
                             (root / f"{name}.pem", cert_bytes, 0o644)):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except OSError as exc:
            raise UsageError(f"{path}: cannot create it ({exc.strerror})") from None
        try:
            os.fchmod(fd, mode)  # the umask may have taken bits away; never added any
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        out.append(path)
    return out
