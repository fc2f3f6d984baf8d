"""Writing a site into a directory: only the files whose bytes changed, with a manifest.

A file whose bytes on disk are the ones to write is kept (not touched: its time stays,
so a web server's caches and an rsync see no change); any other is written to a
temporary name beside it and renamed over it, so a reader never sees half a page. The
manifest (MANIFEST: each file's SHA-256) says which files the last publish wrote: a
page of a series the history no longer holds is removed, and nothing the manifest does
not name is ever deleted. A directory that is not empty and has no manifest is refused,
so publishing into the wrong directory cannot overwrite someone's files.

The manifest also keeps, for the files whose caller names it, what a file was made from
(`made_from`: a hash of every input of its bytes), so the next publish takes such a file
from the disk instead of laying it out again when its inputs are the same and the file
is still the bytes the manifest lists (`Previous.reusable`).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass

from benchlab.errors import InputError, UsageError

MANIFEST = "benchlab-site.json"
FORMAT = "benchlab-site"


@dataclass(frozen=True)
class Outcome:
    """The files written (new or changed), how many were kept, and those removed."""

    written: tuple[str, ...]
    kept: int
    removed: tuple[str, ...]


@dataclass(frozen=True)
class Previous:
    """What the last publish into a directory left: each file's SHA-256 and, for some,
    what it was made from (empty for a new directory, or one that is not a site)."""

    directory: str
    files: dict[str, str]
    made_from: dict[str, str]

    def reusable(self, name: str, source: str) -> bytes | None:
        """The bytes of file `name` when the last publish made it from `source` and it
        is still the file the manifest lists (its SHA-256); else None."""
        if self.made_from.get(name) != source or name not in self.files or not _inside(name):
            return None
        try:
            with open(os.path.join(self.directory, *name.split("/")), "rb") as handle:
                content = handle.read()
        except OSError:
            return None
        return content if hashlib.sha256(content).hexdigest() == self.files[name] else None


def previous(directory: str) -> Previous:
    """What the last publish left in `directory`; nothing when it holds no readable
    manifest (write_tree says why, if it must refuse the directory)."""
    try:
        with open(os.path.join(directory, MANIFEST), encoding="utf-8") as handle:
            doc = json.loads(handle.read())
    except (OSError, UnicodeDecodeError, ValueError):
        return Previous(directory, {}, {})
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return Previous(directory, {}, {})
    files, made = doc.get("files"), doc.get("made_from", {})
    if not isinstance(files, dict) or not isinstance(made, dict):
        return Previous(directory, {}, {})
    return Previous(directory, {str(k): str(v) for k, v in files.items()},
                    {str(k): str(v) for k, v in made.items()})


def _old_manifest(directory: str) -> dict[str, str]:
    path = os.path.join(directory, MANIFEST)
    if not os.path.exists(path):
        if os.listdir(directory):
            raise UsageError("is not empty and holds no site benchlab published (no "
                             f"{MANIFEST}); give a new or empty directory", directory)
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.loads(handle.read())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read the site's manifest: {exc}", path) from None
    files = doc.get("files") if isinstance(doc, dict) else None
    if doc.get("format") != FORMAT or not isinstance(files, dict):
        raise InputError(f"not a manifest of a benchlab site (no format {FORMAT!r})", path)
    return {str(k): str(v) for k, v in files.items()}


def _same(path: str, content: bytes) -> bool:
    try:
        if os.path.getsize(path) != len(content):
            return False
        with open(path, "rb") as handle:
            return handle.read() == content
    except OSError:
        return False


def _write(path: str, content: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.tmp-{os.getpid()}"
    try:
        with open(temporary, "wb") as handle:
            handle.write(content)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _inside(name: str) -> bool:
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and ".." not in parts and "" not in parts


def write_tree(directory: str, files: dict[str, bytes],
               made_from: dict[str, str] | None = None) -> Outcome:
    """Write `files` (relative path with "/" -> bytes) under `directory` (created when
    missing), each only if its bytes differ; remove what the last manifest listed and
    `files` does not; write the manifest last (if it changed), with `made_from` (what
    some of the files were made from, for the next publish's `Previous.reusable`)."""
    bad = [name for name in files if not _inside(name) or name == MANIFEST]
    if bad:
        raise ValueError(f"not a file name inside the site: {bad[0]!r}")
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError("is not a directory", directory)
    parent = os.path.dirname(os.path.abspath(directory))
    if not os.path.isdir(parent):
        raise UsageError(f"cannot create the site: directory {parent} does not exist",
                         directory)
    try:
        os.makedirs(directory, exist_ok=True)
        old = _old_manifest(directory)
        written, kept = [], 0
        for name in sorted(files):
            path = os.path.join(directory, *name.split("/"))
            if _same(path, files[name]):
                kept += 1
                continue
            _write(path, files[name])
            written.append(name)
        removed = []
        for name in sorted(set(old) - set(files)):
            path = os.path.join(directory, *name.split("/"))
            if _inside(name) and os.path.isfile(path):
                os.unlink(path)
                removed.append(name)
        doc = {"format": FORMAT, "version": 1,
               "files": {k: hashlib.sha256(v).hexdigest() for k, v in sorted(files.items())}}
        if made_from:
            doc["made_from"] = {k: v for k, v in sorted(made_from.items()) if k in files}
        manifest = json.dumps(doc, indent=1, sort_keys=True).encode() + b"\n"
        path = os.path.join(directory, MANIFEST)
        if not _same(path, manifest):
            _write(path, manifest)
    except OSError as exc:
        raise UsageError(f"cannot write the site: {exc.strerror or exc}",
                         exc.filename or directory) from None
    return Outcome(tuple(written), kept, tuple(removed))
