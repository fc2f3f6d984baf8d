"""`benchlab cluster certs DIR --machine NAME ...`: the certificates of a cluster that only its
owner can use (Dask's mutual TLS; runner/certs.py makes them, docs/cluster.md uses them)."""

from __future__ import annotations

import argparse

EXAMPLE = """examples:
  benchlab cluster certs ~/lab-certs --machine core2 --machine p4
  benchlab cluster certs ~/lab-certs --machine node3     # later: one more, same CA
then copy ca.pem, NAME.pem and NAME.key to the machine NAME (docs/cluster.md)
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "cluster", help="set up a cluster for `run --cluster`: its TLS certificates",
        description="Tools for a Dask cluster that runs experiments (docs/cluster.md).",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    inner = p.add_subparsers(dest="cluster_command", metavar="subcommand")
    c = inner.add_parser(
        "certs", help="make a CA and a certificate for the scheduler, the client and each "
                      "machine",
        description="Make a private certificate authority (DIR/ca.pem, DIR/ca.key) and, signed\n"
                    "by it, a certificate and key for the scheduler (scheduler.pem/.key), for\n"
                    "the driver `benchlab run --cluster` (client.pem/.key) and for each\n"
                    "--machine (NAME.pem/.key). Only parties holding a certificate of this CA\n"
                    "can use the cluster. Keys are written 0600 and nothing is overwritten:\n"
                    "run it again on DIR to add machines, signed by the same CA. Keep\n"
                    "DIR/ca.key to yourself: whoever has it can join the cluster.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("directory", metavar="DIR", help="where the files go (made 0700 if new)")
    c.add_argument("--machine", action="append", default=[], metavar="NAME",
                   help="a machine's name, as its `benchlab worker --machine NAME` (repeat)")
    c.add_argument("--days", type=int, default=365, metavar="N",
                   help="how long the new certificates are valid (default: 365)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from benchlab.errors import UsageError

    if args.cluster_command != "certs":
        raise UsageError("give a subcommand: benchlab cluster certs DIR --machine NAME "
                         "(see benchlab cluster --help)")
    from benchlab.runner import certs

    made = certs.make(args.directory, args.machine, args.days)
    for path in made.written:
        print(f"wrote {path}{' (private: 0600)' if path.suffix == '.key' else ''}")
    if made.kept:
        print(f"kept {', '.join(made.kept)}: already in {args.directory} (nothing overwritten)")
    if not made.new_ca:
        print(f"signed with the existing CA {args.directory}/ca.pem")
    print("next: copy ca.pem, NAME.pem and NAME.key to each machine NAME, and start the "
          "scheduler, the workers and the run with TLS as docs/cluster.md shows")
    return 0
