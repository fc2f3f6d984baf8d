"""`benchlab bisect --help` and `history bisect --help` say what the code does: the default
worker machine of `history bisect --cluster` (docs/bisect.md "history bisect on a cluster")."""

from __future__ import annotations


def _help(run_cli, *command: str) -> str:
    _, out, _ = run_cli(*command, "--help", expect=0)
    return out


def test_history_bisect_names_its_default_worker_machine(run_cli):
    """With --machine, its machine (where the change was seen); without, the one machine
    connected (it is not the series' machine then: local:1's worker is named "local")."""
    words = " ".join(_help(run_cli, "history", "bisect").split())
    assert ("--cluster-machine NAME with --cluster: the machine whose worker builds and "
            "measures (needed when several are connected); default: the machine --machine "
            "names, where the change was seen; without --machine, the one machine "
            "connected") in words
