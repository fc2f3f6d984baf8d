"""The TLS files of one party of a cluster (a worker, or the driver as Dask's client), checked
before Dask sees them, so that each mistake is one line naming the file (docs/cluster.md).

Dask itself would say "Worker failed to start" or raise a TypeError on a tls:// address
without certificates, and an ssl traceback on a wrong file. `check` loads the files as Dask
will (the standard library's ssl) and completes a TLS handshake in memory between this
party's certificate and the CA, so a certificate the CA did not sign, or one that expired,
is named here rather than found as a refused connection. No Dask here: the driver
(`runner/cluster.py`) and `benchlab worker` build Dask's `Security` from these files.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import ssl
from dataclasses import dataclass

from benchlab.errors import UsageError

ENV = {"ca_file": "BENCHLAB_TLS_CA_FILE", "cert": "BENCHLAB_TLS_CERT",
       "key": "BENCHLAB_TLS_KEY"}
OPTION = {"ca_file": "--tls-ca-file", "cert": "--tls-cert", "key": "--tls-key"}
SCHEMES = ("tcp", "tls")


@dataclass(frozen=True)
class TlsFiles:
    """The CA certificate every party trusts, and this party's certificate and key."""

    ca_file: str
    cert: str
    key: str


def from_values(address: str, ca_file: str | None, cert: str | None, key: str | None
                ) -> TlsFiles | None:
    """The TLS files for a connection to `address` (tcp:// or tls://), or None for tcp://.
    A tls:// address needs all three, each given or in its BENCHLAB_TLS_* variable; tcp://
    takes no option (the variables are then not read). UsageError names what is wrong."""
    given = {"ca_file": ca_file, "cert": cert, "key": key}
    scheme = address.split("://", 1)[0] if "://" in address else ""
    if scheme == "tls":
        given = {k: v if v else (os.environ.get(ENV[k]) or None) for k, v in given.items()}
        ca_file, cert, key = given["ca_file"], given["cert"], given["key"]
        missing = [f"{OPTION[k]} (or {ENV[k]})" for k, v in given.items() if not v]
        if missing:
            raise UsageError(f"{address} is a TLS address: give {', '.join(missing)}; make "
                             "the files with: benchlab cluster certs DIR (docs/cluster.md)")
        files = TlsFiles(ca_file or "", cert or "", key or "")
        check(files)
        return files
    named = [OPTION[k] for k, v in given.items() if v]
    if named and scheme != "tcp":
        raise UsageError(f"{', '.join(named)} {'go' if len(named) > 1 else 'goes'} with a "
                         f"tls://HOST:PORT scheduler, not {address}")
    if named:
        raise UsageError(f"{', '.join(named)} given but {address} is not a TLS address: use "
                         f"tls://{address.split('://', 1)[-1]} (a scheduler started with "
                         "--tls-ca-file, --tls-cert and --tls-key)")
    return None


def check(files: TlsFiles) -> None:
    """Each file readable and what it should be (a CA certificate, a certificate, its key),
    and the certificate signed by the CA and valid now. UsageError names the file."""
    for what, path in (("--tls-ca-file", files.ca_file), ("--tls-cert", files.cert),
                       ("--tls-key", files.key)):
        try:
            with open(path, "rb") as f:
                f.read(1)
        except OSError as exc:
            raise UsageError(f"{what} {path}: cannot read it ({exc.strerror})") from None
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    client = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client.check_hostname = False  # as Dask: the cluster's own CA, addresses not names
    try:
        client.load_verify_locations(cafile=files.ca_file)
    except (ssl.SSLError, ValueError) as exc:
        raise UsageError(f"--tls-ca-file {files.ca_file}: not a PEM certificate "
                         f"({_reason(exc)})") from None
    try:
        server.load_cert_chain(files.cert, files.key)
    except ssl.SSLError as exc:
        reason = _reason(exc)
        if "KEY_VALUES_MISMATCH" in str(exc) or "key values mismatch" in reason:
            raise UsageError(f"--tls-key {files.key} is not the key of --tls-cert "
                             f"{files.cert}") from None
        raise UsageError(f"--tls-cert {files.cert} / --tls-key {files.key}: not a PEM "
                         f"certificate and its unencrypted key ({reason})") from None
    try:
        _handshake(server, client)
    except ssl.SSLCertVerificationError as exc:
        raise UsageError(f"--tls-cert {files.cert} is not accepted by --tls-ca-file "
                         f"{files.ca_file}: {exc.verify_message} (make both with the same "
                         "benchlab cluster certs DIR)") from None


def _handshake(server: ssl.SSLContext, client: ssl.SSLContext) -> None:
    """A TLS handshake in memory: the client verifies the server's certificate chain."""
    to_server, to_client = ssl.MemoryBIO(), ssl.MemoryBIO()
    s = server.wrap_bio(to_server, to_client, server_side=True)
    c = client.wrap_bio(to_client, to_server, server_side=False)
    for _ in range(10):
        done = 0
        for side in (c, s):
            try:
                side.do_handshake()
                done += 1
            except ssl.SSLWantReadError:
                pass
        if done == 2:
            return
    raise UsageError("the TLS files did not complete a handshake with each other")


def _reason(exc: BaseException) -> str:
    """An ssl error's reason in a few words ("pem lib", "no start line")."""
    import re

    text = getattr(exc, "reason", None) or (exc.args[-1] if exc.args else "") \
        or type(exc).__name__
    text = re.sub(r"\[\w+\]|\(_ssl\.c:\d+\)", "", str(text)).replace("_", " ")
    return " ".join(text.split()).lower()[:120]


def address_host(address: str) -> str:
    """The host of tcp://HOST:PORT or tls://[IPv6]:PORT; UsageError when not such an address."""
    scheme, sep, rest = address.partition("://")
    if not sep or scheme not in SCHEMES or not rest:
        raise UsageError(f"the scheduler's address must be like tcp://HOST:PORT or "
                         f"tls://HOST:PORT, not {address!r}")
    if rest.startswith("["):
        host, _, port = rest[1:].partition("]")
        port = port[1:] if port.startswith(":") else ""
    else:
        host, _, port = rest.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or "/" in host:
        raise UsageError(f"the scheduler's address must be like {scheme}://HOST:PORT, not "
                         f"{address!r}")
    return host


def is_loopback(host: str) -> bool:
    """True when every address `host` names is a loopback one (127.0.0.0/8, ::1): "localhost"
    is, and so is a name this machine resolves to loopback only; one it cannot resolve is not."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False
    return bool(found) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback
                               for a in found)

