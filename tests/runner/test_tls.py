"""The TLS files of a cluster (issue 20.1) without Dask: `benchlab cluster certs` (made with the
cryptography library, checked with it and with the standard library's ssl, as Dask loads
them), the one-line errors of runner/tls.py for each wrong file, and the address checks
behind a worker's loopback-only default."""

from __future__ import annotations

import datetime
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.errors import UsageError

cryptography = pytest.importorskip("cryptography", reason="pip install benchlab[cluster]")

from benchlab.runner import certs, tls  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("certs") / "lab"
    done = subprocess.run([sys.executable, "-m", "benchlab", "cluster", "certs", str(d),
                           "--machine", "m1", "--machine", "m2"], env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return d


@pytest.fixture(scope="module")
def foreign(tmp_path_factory) -> Path:
    """Another CA and its client: what an outsider who ran `cluster certs` has."""
    d = tmp_path_factory.mktemp("foreign")
    certs.make(d, [])
    return d


def _load(path: Path):
    from cryptography import x509

    return x509.load_pem_x509_certificate(path.read_bytes())


def test_certs_makes_a_ca_and_one_certificate_per_party(made):
    names = sorted(p.name for p in made.iterdir())
    assert names == sorted(f"{n}.{ext}" for n in ("ca", "scheduler", "client", "m1", "m2")
                           for ext in ("pem", "key"))
    assert stat.S_IMODE(made.stat().st_mode) == 0o700
    for key in made.glob("*.key"):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600, key
    from cryptography import x509

    ca = _load(made / "ca.pem")
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    for name in ("scheduler", "client", "m1", "m2"):
        cert = _load(made / f"{name}.pem")
        cert.verify_directly_issued_by(ca)  # raises unless the CA signed it
        assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
        assert cert.subject.get_attributes_for_oid(
            x509.oid.NameOID.COMMON_NAME)[0].value == name
        end = getattr(cert, "not_valid_after_utc", None) \
            or cert.not_valid_after.replace(tzinfo=datetime.timezone.utc)  # cryptography < 42
        days = (end - datetime.datetime.now(datetime.timezone.utc)).days
        assert 363 <= days <= 365
        tls.check(tls.TlsFiles(str(made / "ca.pem"), str(made / f"{name}.pem"),
                               str(made / f"{name}.key")))


def test_certs_again_adds_machines_with_the_same_ca_and_overwrites_nothing(tmp_path):
    d = tmp_path / "c"
    first = certs.make(d, ["a"])
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    again = certs.make(d, ["a", "b"])
    assert first.new_ca and not again.new_ca
    assert again.kept == ("scheduler", "client", "a")
    assert sorted(p.name for p in again.written) == ["b.key", "b.pem"]
    assert all((d / n).read_bytes() == data for n, data in before.items())
    _load(d / "b.pem").verify_directly_issued_by(_load(d / "ca.pem"))


@pytest.mark.parametrize(("setup", "machines", "message"), [
    (None, ["a b"], "is not a machine name"),
    (None, ["client"], "names ca, scheduler and client are taken"),
    ("ca.pem", [], "ca.pem exists without ca.key"),
    ("m1.key", ["m1"], "m1.key exists without m1.pem"),
    ("file", [], "exists and is not a directory"),
])
def test_certs_refuses_what_it_cannot_do_cleanly(tmp_path, setup, machines, message):
    d = tmp_path / "c"
    if setup == "file":
        d.write_text("x")
    elif setup == "ca.pem":
        d.mkdir()
        (d / "ca.pem").write_text("x")
    elif setup == "m1.key":
        certs.make(d, [])
        (d / "m1.key").write_text("x")
    with pytest.raises(UsageError, match=message):
        certs.make(d, machines)


def test_certs_command_line(tmp_path):
    for argv, code, text in (
            (["certs", str(tmp_path / "x"), "--machine=.bad"], 2, "is not a machine name"),
            (["certs", str(tmp_path / "x"), "--days", "0"], 2, "--days must be"),
            ([], 2, "give a subcommand")):
        done = subprocess.run([sys.executable, "-m", "benchlab", "cluster", *argv], env=ENV,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == code, done.stderr
        assert text in done.stderr and done.stderr.count("\n") == 1, done.stderr


def _files(d: Path, ca: str = "ca.pem", cert: str = "m1.pem", key: str = "m1.key",
           other: Path | None = None) -> tls.TlsFiles:
    o = other or d
    return tls.TlsFiles(str(d / ca), str(o / cert), str(o / key))


@pytest.mark.parametrize(("case", "message"), [
    ("missing cert", r"--tls-cert .*nope\.pem: cannot read it \(No such file"),
    ("directory as key", r"--tls-key .*: cannot read it \(Is a directory"),
    ("key as CA", r"--tls-ca-file .*m1\.key: not a PEM certificate"),
    ("key as cert", r"--tls-cert .*m1\.key / --tls-key .*: not a PEM certificate"),
    ("another machine's key", r"--tls-key .*m2\.key is not the key of --tls-cert .*m1\.pem"),
    ("foreign cert", r"--tls-cert .*client\.pem is not accepted by --tls-ca-file .*ca\.pem: "
                     r"unable to get local issuer certificate"),
    ("expired", r"is not accepted by .*: certificate has expired"),
])
def test_a_wrong_file_is_one_line_naming_it(made, foreign, tmp_path, case, message):
    files = {
        "missing cert": _files(made, cert="nope.pem"),
        "directory as key": tls.TlsFiles(str(made / "ca.pem"), str(made / "m1.pem"),
                                         str(tmp_path)),
        "key as CA": _files(made, ca="m1.key"),
        "key as cert": _files(made, cert="m1.key"),
        "another machine's key": _files(made, key="m2.key"),
        "foreign cert": _files(made, cert="client.pem", key="client.key", other=foreign),
        "expired": _expired(made, tmp_path),
    }[case]
    with pytest.raises(UsageError, match=message) as info:
        tls.check(files)
    assert "\n" not in str(info.value)


def _expired(made: Path, tmp: Path) -> tls.TlsFiles:
    """A certificate the CA signed that expired yesterday (runner/certs.py's own builder)."""
    from cryptography.hazmat.primitives import serialization

    ca_cert, ca_key = certs._load_ca(made / "ca.pem", made / "ca.key")
    key = certs._new_key()
    cert = certs._certificate("old", key.public_key(), ca_key, ca_cert, 1, ca=False)
    from cryptography import x509

    past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=3)
    old = (x509.CertificateBuilder().subject_name(cert.subject).issuer_name(cert.issuer)
           .public_key(key.public_key()).serial_number(x509.random_serial_number())
           .not_valid_before(past).not_valid_after(past + datetime.timedelta(days=1)))
    for ext in cert.extensions:
        old = old.add_extension(ext.value, ext.critical)
    from cryptography.hazmat.primitives import hashes

    old_cert = old.sign(ca_key, hashes.SHA256())
    (tmp / "old.pem").write_bytes(old_cert.public_bytes(serialization.Encoding.PEM))
    (tmp / "old.key").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return tls.TlsFiles(str(made / "ca.pem"), str(tmp / "old.pem"), str(tmp / "old.key"))


def test_tls_address_needs_files_and_takes_them_from_the_environment(made, monkeypatch):
    for k in tls.ENV.values():
        monkeypatch.delenv(k, raising=False)
    with pytest.raises(UsageError, match=r"tls://h:1 is a TLS address: give --tls-ca-file "
                                         r"\(or BENCHLAB_TLS_CA_FILE\), --tls-cert"):
        tls.from_values("tls://h:1", None, None, None)
    monkeypatch.setenv("BENCHLAB_TLS_CA_FILE", str(made / "ca.pem"))
    monkeypatch.setenv("BENCHLAB_TLS_CERT", str(made / "client.pem"))
    with pytest.raises(UsageError, match=r"give --tls-key \(or BENCHLAB_TLS_KEY\);"):
        tls.from_values("tls://h:1", None, None, None)
    files = tls.from_values("tls://h:1", None, None, str(made / "client.key"))
    assert files == tls.TlsFiles(str(made / "ca.pem"), str(made / "client.pem"),
                                 str(made / "client.key"))
    # tcp:// ignores the variables, but refuses the options
    assert tls.from_values("tcp://h:1", None, None, None) is None
    with pytest.raises(UsageError, match="--tls-cert given but tcp://h:1 is not a TLS address: "
                                         "use tls://h:1"):
        tls.from_values("tcp://h:1", None, "x.pem", None)
    with pytest.raises(UsageError, match="--tls-ca-file goes with a tls://HOST:PORT scheduler"):
        tls.from_values("local:2", "ca.pem", None, None)


@pytest.mark.parametrize(("address", "host"), [
    ("tcp://127.0.0.1:8786", "127.0.0.1"), ("tls://sched.lab:1", "sched.lab"),
    ("tls://[::1]:8786", "::1"),
])
def test_address_host(address, host):
    assert tls.address_host(address) == host


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "ws://h:1", "tcp://h", "tcp://h:0",
                                     "tcp://:1", "tls://h:99999", "tcp://[::1]"])
def test_bad_address_is_one_line(address):
    with pytest.raises(UsageError, match="must be like"):
        tls.address_host(address)


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.3.2.1", True), ("::1", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.0.2.7", False), ("10.0.0.1", False),
    ("no-such-host.invalid", False),
])
def test_is_loopback(host, loopback):
    assert tls.is_loopback(host) is loopback
