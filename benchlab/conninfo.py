"""Database URLs: whether a `--db` names a PostgreSQL server, and any text without passwords.

A server is named by a URL or by libpq's key=value conninfo (`host=h dbname=x`). A URL's
password (`postgresql://user:SECRET@host/db`, `?password=SECRET`) and libpq's
PGPASSWORD are replaced by `***` wherever benchlab echoes text: messages, the JSON
envelope's argv, a crash report. Nothing here imports a driver.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

SCHEMES = ("postgresql://", "postgres://")
MASK = "***"
# user:PASSWORD@ in any URL's authority; password=VALUE as a URL query parameter or a
# libpq key=value conninfo word (quoted or not)
_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/@?#\s:]*:)[^@/?#\s]*(?=@)")
_KEYWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)(?:'(?:[^'\\]|\\.)*'|[^&\s]*)",
                      re.IGNORECASE)


# libpq's key=value conninfo ("host=h dbname=x user=u"): every word a keyword=value (the
# value bare or single-quoted), at least one of them a keyword naming where to connect
_WORD = r"\s*[A-Za-z_]+\s*=\s*(?:'(?:[^'\\]|\\.)*'|[^\s'=]*)"
_CONNINFO = re.compile(rf"(?:{_WORD})+\s*")
_PLACES = re.compile(r"(?:^|\s)(?:host|hostaddr|port|dbname|user|password|passfile|service)"
                     r"\s*=", re.IGNORECASE)


def is_server(text: str) -> bool:
    """True when `text` names a PostgreSQL database: a URL (postgresql:// or postgres://,
    any case) or a libpq key=value conninfo (`host=h dbname=x`), which libpq reads as a
    URL's equal."""
    if text[:len(SCHEMES[0])].lower() == SCHEMES[0] or \
            text[:len(SCHEMES[1])].lower() == SCHEMES[1]:
        return True
    return "=" in text and bool(_CONNINFO.fullmatch(text)) and bool(_PLACES.search(text))


def passwords(url: str | None = None) -> list[str]:
    """The secrets to hide: the URL's password (as written and decoded), its password
    parameter, and PGPASSWORD; longest first, so none is left half-replaced."""
    found = []
    if url:
        try:
            parts = urlsplit(url)
            if parts.password:
                found += [parts.password, unquote(parts.password)]
        except ValueError:
            pass  # an unparsable URL: the patterns below still mask what they recognise
        for match in _KEYWORD.finditer(url):
            value = match.group(0)[len(match.group("head")):].strip("'")
            found += [value, unquote(value)]
    if os.environ.get("PGPASSWORD"):
        found.append(os.environ["PGPASSWORD"])
    return sorted({s for s in found if s and s != MASK}, key=len, reverse=True)


def masked(text: str, url: str | None = None) -> str:
    """`text` with every password replaced by ***: a URL's `user:PASSWORD@`, a
    `password=` parameter, and the literal secrets of `url` and PGPASSWORD."""
    out = _USERINFO.sub(lambda m: m.group("head") + MASK, text)
    out = _KEYWORD.sub(lambda m: m.group("head") + MASK, out)
    for secret in passwords(url):
        if len(secret) >= 3:  # a one- or two-letter secret would mask ordinary words
            out = out.replace(secret, MASK)
    return out


def shown(where: str) -> str:
    """A `--db` as messages and the JSON envelope name it: a file's path as given, a
    server's URL without its password."""
    return masked(where, where) if is_server(where) else masked(where)


def hidden(text: str, argv: Sequence[str]) -> str:
    """`text` without the passwords of any server URL among `argv` (a crash report)."""
    out = masked(text)
    for arg in argv:
        if is_server(arg) or "password" in arg.lower():
            out = masked(out, arg)
    return out
