"""--tls-ca-file, --tls-cert and --tls-key, shared by `benchlab worker` and `run --cluster`: the
files of Dask's mutual TLS, made by `benchlab cluster certs DIR` (docs/cluster.md)."""

from __future__ import annotations

import argparse


def add(parser: argparse.ArgumentParser, party: str) -> None:
    """The three options; `party` says whose certificate (e.g. "this machine's")."""
    group = parser.add_argument_group(
        "TLS (a tls:// address; each option may come from its environment variable)")
    group.add_argument("--tls-ca-file", metavar="FILE",
                       help="the cluster's CA certificate, DIR/ca.pem of benchlab cluster certs "
                            "(env BENCHLAB_TLS_CA_FILE)")
    group.add_argument("--tls-cert", metavar="FILE",
                       help=f"{party} certificate, e.g. DIR/NAME.pem (env BENCHLAB_TLS_CERT)")
    group.add_argument("--tls-key", metavar="FILE",
                       help=f"{party} private key, e.g. DIR/NAME.key (env BENCHLAB_TLS_KEY)")


def files(args: argparse.Namespace, address: str):
    """The checked TLS files for `address` (runner/tls.py `TlsFiles`), or None for tcp://."""
    from benchlab.runner.tls import from_values

    return from_values(address, args.tls_ca_file, args.tls_cert, args.tls_key)
