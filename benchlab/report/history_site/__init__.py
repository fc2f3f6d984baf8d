"""`history publish`'s static site: pages (pages.py), charts (chart.py), the PR checks'
pages (check_pages.py), the incremental writer (files.py), its script and style
(assets/, package data) and the command's own output (formats.py). The site works from
the file system and from any web server and fetches nothing beyond its own files: its
script and style are copied from this package, never linked from elsewhere."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import numpy as np

from benchlab.history import analysis_cache
from benchlab.history.publish import Published, SeriesHistory, SiteData
from benchlab.report.history_site.check_pages import (
    check_page,
    check_page_name,
    series_section,
)
from benchlab.report.history_site.files import Previous, previous, write_tree
from benchlab.report.history_site.pages import (
    ASSETS,
    COMMITS,
    Options,
    commit_link,
    commits_script,
    index_page,
    page_head,
    page_name,
    series_page,
)


def asset(name: str) -> bytes:
    """One of the site's script and style files, as shipped in the package."""
    return (resources.files(__name__) / "assets" / name).read_bytes()


def page_source(s: SeriesHistory, key: str, data: SiteData, options: Options) -> str:
    """A hash of everything the page of series `s` is made from: the code (data.stamp),
    its findings' inputs (`key`, history/analysis_cache.py), every number of `s` the page shows (its
    commits' positions, means, CIs, units and the units' means), the settings, the
    options and the PR checks' rows of it. The same hash: the same bytes."""
    digest = hashlib.sha256(json.dumps(
        [data.stamp, key, data.threshold, data.confidence, data.seed, data.min_segment,
         options.title, options.commit_url, series_section(s, data)]).encode())
    for part in (s.at, s.mean, s.low, s.high, s.n, [r.size for r in s.runs], *s.runs):
        array = np.asarray(part)
        digest.update(f"{array.dtype.str}{array.shape}".encode() + array.tobytes())
    return digest.hexdigest()


def site_files(data: SiteData, options: Options, before: Previous | None = None
               ) -> tuple[dict[str, bytes], dict[str, str]]:
    """Every file of the site, by its path relative to the site's directory, and what each
    series page was made from (page_source). A page whose sources are those of the page
    the last publish left (`before`), still as it wrote it, is taken from the disk, not
    laid out again: the same bytes."""
    files = {"index.html": index_page(data, options).encode(),
             COMMITS: commits_script(data).encode()}
    files.update({f"assets/{name}": asset(name) for name in ASSETS})
    pages, made_from = {}, {}
    for s, key in zip(data.series, data.keys or (None,) * len(data.series), strict=True):
        name = pages[s.key] = page_name(s)
        content = None
        if key is not None:
            made_from[name] = page_source(s, key, data, options)
            content = before.reusable(name, made_from[name]) if before else None
        files[name] = content if content is not None else \
            series_page(s, data, options).encode()
    for c in data.checks:
        files[check_page_name(c)] = check_page(
            c, data, options.title, lambda sha: commit_link(options.commit_url, sha),
            page_head, pages).encode()
    if data.stamp:  # the findings, for the next publish to reuse (history/analysis_cache.py)
        files[analysis_cache.FILE] = analysis_cache.dump(
            ((k, s.findings) for k, s in zip(data.keys, data.series, strict=True)
             if k is not None), data.stamp)
    return files, made_from


def publish(data: SiteData, directory: str, options: Options) -> Published:
    """Write the site of `data` into `directory`, only the files that changed."""
    outcome = write_tree(directory, *site_files(data, options, previous(directory)))
    notes = data.notes + tuple(s.findings.note for s in data.series if s.findings.note)
    return Published(directory, len(data.series), len(data.commits), outcome.written,
                     outcome.kept, outcome.removed, data.threshold, data.confidence,
                     data.seed, notes, len(data.checks), data.analysed)
