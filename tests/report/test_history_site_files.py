"""report/history_site/files.py: only changed bytes are written, only what the last manifest
listed is removed, and a directory of other files is never written into."""

from __future__ import annotations

import json

import pytest

from benchlab.errors import InputError, UsageError
from benchlab.report.history_site.files import MANIFEST, write_tree


def test_written_kept_and_removed(tmp_path):
    site = tmp_path / "site"
    first = write_tree(str(site), {"index.html": b"a", "series/x.html": b"x",
                                   "series/y.html": b"y"})
    assert first.written == ("index.html", "series/x.html", "series/y.html")
    (site / "series" / "mine.txt").write_text("a file of the user's")  # not in the manifest
    second = write_tree(str(site), {"index.html": b"a2", "series/x.html": b"x"})
    assert second.written == ("index.html",) and second.kept == 1
    assert second.removed == ("series/y.html",) and not (site / "series" / "y.html").exists()
    assert (site / "series" / "mine.txt").exists()
    manifest = json.loads((site / MANIFEST).read_text())
    assert sorted(manifest["files"]) == ["index.html", "series/x.html"]
    assert not [p for p in site.rglob("*.tmp-*")]


def test_refusals(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "a").write_text("")
    with pytest.raises(UsageError, match="holds no site"):
        write_tree(str(other), {"index.html": b""})
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / MANIFEST).write_text("{}")
    with pytest.raises(InputError, match="not a manifest"):
        write_tree(str(bad), {"index.html": b""})
    with pytest.raises(ValueError, match="inside the site"):
        write_tree(str(tmp_path / "new"), {"../escape.html": b""})
    with pytest.raises(UsageError, match="does not exist"):
        write_tree(str(tmp_path / "no" / "such"), {"index.html": b""})
