"""`history publish`'s static site: pages (pages.py), charts (chart.py), the PR checks'
pages (check_pages.py), the incremental writer (files.py), its script and style
(assets/, package data) and the command's own output (formats.py). The site works from
the file system and from any web server and fetches nothing beyond its own files: its
script and style are copied from this package, never linked from elsewhere."""

from __future__ import annotations

from importlib import resources

from benchlab.history import analysis_cache
from benchlab.history.publish import Published, SiteData
from benchlab.report.history_site.check_pages import check_page, check_page_name
from benchlab.report.history_site.files import write_tree
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


def site_files(data: SiteData, options: Options) -> dict[str, bytes]:
    """Every file of the site, by its path relative to the site's directory."""
    files = {"index.html": index_page(data, options).encode(),
             COMMITS: commits_script(data).encode()}
    files.update({f"assets/{name}": asset(name) for name in ASSETS})
    pages = {}
    for s in data.series:
        pages[s.key] = page_name(s)
        files[page_name(s)] = series_page(s, data, options).encode()
    for c in data.checks:
        files[check_page_name(c)] = check_page(
            c, data, options.title, lambda sha: commit_link(options.commit_url, sha),
            page_head, pages).encode()
    if data.stamp:  # the findings, for the next publish to reuse (history/analysis_cache.py)
        files[analysis_cache.FILE] = analysis_cache.dump(
            ((k, s.findings) for k, s in zip(data.keys, data.series, strict=True)
             if k is not None), data.stamp)
    return files


def publish(data: SiteData, directory: str, options: Options) -> Published:
    """Write the site of `data` into `directory`, only the files that changed."""
    outcome = write_tree(directory, site_files(data, options))
    notes = data.notes + tuple(s.findings.note for s in data.series if s.findings.note)
    return Published(directory, len(data.series), len(data.commits), outcome.written,
                     outcome.kept, outcome.removed, data.threshold, data.confidence,
                     data.seed, notes, len(data.checks), data.analysed)
