"""The refusal of a bisect resumed on another machine than the one its store was measured on
(cli/bisect.py _check_measured_on) names the options that resume it there: for a store
measured on machine M of a cluster, --machine M with the cluster (a local:1 worker included,
whose machine is named "local" only without --machine). Checked on real stores, against the
`measured_on` a Remote of the given machine would record (no scheduler is needed for that)."""

from __future__ import annotations

import json

import pytest

from benchlab.cli.bisect import _check_measured_on
from benchlab.errors import UsageError
from benchlab.runner.bisect_cluster import LOCAL_MACHINE, Remote
from benchlab.runner.bisect_store import BisectStore
from benchlab.runner.cluster import Cluster


def _remote(address: str, machine: str) -> Remote:
    return Remote(Cluster(client=None, address=address), machine, "tcp://127.0.0.1:1", "h",
                  "/cache")


def _refusal(tmp_path, measured_on: Remote, resumed_on: Remote | None) -> str:
    """The one-line refusal of resuming on `resumed_on` (None: without --cluster) a store
    measured on `measured_on`."""
    store = BisectStore.create(str(tmp_path / "b.db"), {})
    try:
        store.set_meta("measured_on", json.dumps(measured_on.where(), sort_keys=True))
        with pytest.raises(UsageError) as caught:
            _check_measured_on(store, resumed_on)
    finally:
        store.close()
    text = str(caught.value)
    assert "\n" not in text
    return text


@pytest.mark.parametrize("resumed_on", [None, "local"], ids=["no-cluster", "local-1"])
def test_a_local_one_store_of_a_named_machine_says_to_give_its_machine(tmp_path, resumed_on):
    """`--cluster local:1 --machine m9`, resumed with --cluster local:1 alone or without it."""
    again = None if resumed_on is None else _remote("local:1", LOCAL_MACHINE)
    said = _refusal(tmp_path, _remote("local:1", "m9"), again)
    assert "measured on machine m9 of a cluster" in said
    assert said.endswith("resume it there (give --cluster local:1 --machine m9)"), said


def test_a_local_one_store_of_the_default_machine_says_local_one(tmp_path):
    said = _refusal(tmp_path, _remote("local:1", LOCAL_MACHINE), None)
    assert said.endswith("resume it there (give --cluster local:1)"), said


def test_a_scheduler_store_names_the_machine(tmp_path):
    said = _refusal(tmp_path, _remote("tcp://10.0.0.1:8786", "bw1"),
                    _remote("tcp://10.0.0.1:8786", "bw2"))
    assert "on machine bw1 of a cluster, not on --cluster's machine bw2" in said
    assert said.endswith("(give --cluster ADDRESS --machine bw1)"), said
