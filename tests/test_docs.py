"""Every example in docs/ shows what the command prints today (docs/examples/refresh.py).

The text must match exactly; the numbers in it are compared with a tolerance, because
the last digits of a printed number depend on the numpy/scipy build a user has (a 17-digit
JSON value changes in its last bits with the BLAS or a solver's version: numpy 2.1.3/scipy
1.14.1 against 2.4.6/1.17.1 changed p-values and Fieller bounds of docs/anova.md and
docs/compare.md by 1e-15 relative). A number matches if it is within a relative 1e-6 of
the page's, or one unit of the last digit the page shows (a rounding that flipped; for
integers only from three digits up, so a count of 3 cannot become 4), or 1e-9 of the
largest number that moved in its row or JSON object (cancellation near zero). Examples
that resample or simulate with a seed, and qreg's, get a wider tolerance, stated with its
reason at `MONTE_CARLO`. Prose outside the examples is compared exactly.
"""

from __future__ import annotations

import importlib.util
import math
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"

# Relative tolerances for a number of a deterministic computation, of the number itself and
# of the largest number that moved in its row or JSON object: far above floating-point
# noise between library versions (1e-15 .. 1e-10), far below any change a reader would see.
DETERMINISTIC = 1e-6
ROW_DETERMINISTIC = 1e-9

# Examples whose numbers come from a seeded resampling or simulation, matched by a piece of
# their command or code. The random stream is numpy's PCG64, the same in every version,
# but what is drawn passes through steps that are not continuous in the last bits (an LP
# solver's choice among vertices of equal loss in qreg's bootstrap, ties when sorting), so
# another numpy/scipy may take another path in a few replicates, and those replicates are
# then fresh Monte-Carlo draws. Seen: qreg's intercept bound 7667.9 became 7666.5 (0.02%,
# issue 19). A bound of a 95% interval from B replicates has a Monte-Carlo SD of about
# sqrt(0.025 * 0.975 / B) / phi(1.96) = 0.27 standard errors at B = 100 and 0.027 at
# B = 10,000, and a share f of the replicates redrawn moves it by about sqrt(f) times that.
# The tolerance is 1% of the largest number that moved in the row or JSON object (a bound,
# or the estimate beside it; not a CI level or a count that stayed the same): 50 times
# what was seen, and 3 Monte-Carlo SDs of a bound redrawn in full wherever its standard
# error is within 1.2% (B = 100) to 12% (B = 10,000) of that number. It does not cover
# numpy changing a generator's stream (every replicate redrawn, of a small effect): then
# the pages must be refreshed, as the failure message says.
#
# Not Monte Carlo but as path-dependent: qreg's rank-test inversion (without --seed) walks
# a parametric LP whose optimal vertex is not unique on tied data, and scipy's HiGHS picks
# another one in another version; the interval's end then lands on a neighbouring data
# value: numpy 2.1.3/scipy 1.14.1 gave 3996.7 where 2.4.6/1.17.1 give 4028.6 for the
# tau = 0.9 intercept of docs/qreg.md's 80-observation example (0.8%). Every qreg example
# gets the same 1%.
MONTE_CARLO: dict[str, float] = {
    "benchlab qreg": 0.01,
    "--bootstrap": 0.01,
    "--seed": 0.01,
    "--power": 0.01,
    "seed=": 0.01,
    "default_rng": 0.01,
}

NUMBER = re.compile(r"(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
RULE = re.compile(r"([-─━═_=~])\1+")  # table rules: their length follows the widest cell


def _refresh_module():
    spec = importlib.util.spec_from_file_location("refresh", DOCS / "examples" / "refresh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Shown:
    """A number as a page shows it: its value and how far a flipped rounding of its last
    digit moves it (0 for an integer of one or two digits: a count, not a rounding)."""

    value: float
    unit: float


def _shown(token: str) -> Shown:
    text = token.replace("−", "-").replace(",", "")
    mantissa, _, exponent = text.lower().partition("e")
    whole, point, decimals = mantissa.lstrip("+-").partition(".")
    if not (point or exponent) and len(whole.lstrip("0")) < 3:
        return Shown(float(text), 0.0)
    return Shown(float(text), float(f"1e{int(exponent or 0) - len(decimals)}"))  # 1e400: inf


def _split(line: str) -> tuple[str, list[Shown]]:
    """The line's text with every number replaced by '#' (whitespace and table rules
    collapsed, since column widths follow the numbers), and its numbers."""
    numbers = [_shown(m.group()) for m in NUMBER.finditer(line)]
    skeleton = RULE.sub(r"\1", NUMBER.sub("#", line))
    return " ".join(skeleton.split()), numbers


def _sources(module, lines: list[str]) -> list[str]:
    """For each line of a page, the command or code whose output it is ('' for prose)."""
    source = [""] * len(lines)
    blocks = module._blocks(lines)
    for k, (info, start, end) in enumerate(blocks):
        if info == "console":
            command = ""
            for i in range(start + 1, end):
                if lines[i].startswith("$ "):
                    command = lines[i][2:]
                source[i] = command
        elif info == "text" and k > 0 and blocks[k - 1][0] == "python":
            _, s0, e0 = blocks[k - 1]
            code = "\n".join(lines[s0 + 1:e0])
            for i in range(start + 1, end):
                source[i] = code
    return source


def _groups(lines: list[str], sources: list[str]) -> list[int]:
    """For each line, the row it belongs to: itself, or in an example's pretty-printed JSON
    the object or list whose direct member it is (an estimate, its bounds and p-value)."""
    groups: list[int] = []
    stack: list[int] = []
    for i, (line, source) in enumerate(zip(lines, sources, strict=True)):
        text = line.strip()
        if not source or line.startswith("$ "):
            stack = []  # prose, or a new command: no JSON open
        elif text[:1] in "}]" and stack:
            stack.pop()
        groups.append(stack[-1] if stack else i)
        if source and text[-1:] in "{[":
            stack.append(-1 - i)  # a container's id, unlike any line's
    return groups


def _tolerance(source: str) -> tuple[float, float]:
    """(relative to the number, relative to its row's largest number) for an example."""
    found = [tol for key, tol in MONTE_CARLO.items() if key in source]
    if found:
        return DETERMINISTIC, max(found)
    return DETERMINISTIC, ROW_DETERMINISTIC


def _close(doc: Shown, now: Shown, rel: float, row_rel: float, scale: float) -> bool:
    """Within `rel` of the value, or a flipped last digit, or `row_rel` of the row's
    largest number `scale`."""
    if not (math.isfinite(doc.value) and math.isfinite(now.value)):
        return doc.value == now.value or (math.isnan(doc.value) and math.isnan(now.value))
    allowed = max(rel * max(abs(doc.value), abs(now.value)),
                  max(doc.unit, now.unit) * (1 + 1e-9), row_rel * scale)
    return abs(doc.value - now.value) <= allowed


def differences(module, documented: str, current: str) -> list[str]:
    """Where `current` (what the commands print now) differs from the page beyond the
    tolerances above; [] if it does not."""
    old, new = documented.split("\n"), current.split("\n")
    if len(old) != len(new):
        import difflib

        diff = difflib.unified_diff(old, new, "documented", "now", n=1, lineterm="")
        return ["a different number of lines:", *list(diff)[:40]]
    sources = _sources(module, old)
    groups = _groups(old, sources)
    # a row's scale: its largest number that moved (a CI level or a count beside it that
    # stayed the same does not widen what a moved bound may do)
    scale: dict[int, float] = {}
    for a, b, group in zip(old, new, groups, strict=True):
        if a == b:
            continue
        (_, nums_a), (_, nums_b) = _split(a), _split(b)
        if len(nums_a) == len(nums_b):
            for x, y in zip(nums_a, nums_b, strict=True):
                if x.value != y.value and math.isfinite(x.value) and math.isfinite(y.value):
                    scale[group] = max(scale.get(group, 0.0), abs(x.value), abs(y.value))
    problems = []
    for i, (a, b, source) in enumerate(zip(old, new, sources, strict=True)):
        if a == b:
            continue
        (text_a, nums_a), (text_b, nums_b) = _split(a), _split(b)
        if not source or text_a != text_b or len(nums_a) != len(nums_b):  # prose: exact
            problems.append(f"line {i + 1}: text differs:\n  documented: {a}\n  now:        {b}")
            continue
        rel, row_rel = _tolerance(source)
        for x, y in zip(nums_a, nums_b, strict=True):
            if not _close(x, y, rel, row_rel, scale.get(groups[i], 0.0)):
                problems.append(
                    f"line {i + 1}: {x.value:g} documented, {y.value:g} now (allowed: "
                    f"{row_rel:g} of {scale.get(groups[i], 0.0):g}, the row's largest that moved)"
                    f"\n  documented: {a}\n  now:        {b}")
    return problems


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_examples_are_current(page, refreshed_page):
    module = _refresh_module()
    text, now = refreshed_page(page)
    problems = differences(module, text, now)
    assert not problems, (f"docs/{page} is out of date (run python3 docs/examples/refresh.py):\n"
                          + "\n".join(problems[:20]))


def test_numbers_are_compared_to_what_the_page_shows():
    """The comparison itself: a flipped last digit and 1e-12 noise pass, a real change,
    a changed word or a new line does not, and a Monte-Carlo example gets its tolerance."""
    module = _refresh_module()
    page = "```console\n$ benchlab compare a b\n{}\n```\n"
    bootstrap = "```console\n$ benchlab compare a b --bootstrap 10000 --seed 1\n{}\n```\n"
    qreg = "```console\n$ benchlab qreg x.csv --seed 1\n{}\n```\n"

    def same(template, a, b):
        return differences(module, template.format(a), template.format(b)) == []

    assert same(page, "ratio 0.9412 (0.9013 to 0.9834)", "ratio 0.9413 (0.9013 to 0.9834)")
    assert same(page, '"low": 0.90128371928374619', '"low": 0.90128371928374641')
    assert same(page, "7,667.9 us", "7,667.9 us")
    assert same(page, "1.5e-05", "1.6e-05")
    assert same(page, "x 1e400 y 2.5", "x 1e400 y 2.6")  # 1e400 reads as inf, not an error
    assert not same(page, "x 1e400", "x 1e300")
    assert same(page, "-1.25% | 3", "−1.25% | 3")
    assert same(page, "a  | 9.99 |\n---|------|", "a  | 10.0  |\n---|-------|")
    assert not same(page, "ratio 0.9412", "ratio 0.9415")
    assert not same(page, '"low": 0.90128371928374619', '"low": 0.90128471928374619')
    assert not same(page, "faster by 3%", "slower by 3%")
    assert not same(page, "p = 0.01", "p = 0.01 (Holm)")
    assert not same(page, "one line", "one line\nand another")
    assert not same(page, "nan", "1.0")
    # Monte-Carlo examples: within their stated tolerance, not beyond it
    assert same(bootstrap, '"high": 0.98341', '"high": 0.98702')
    assert not same(bootstrap, '"high": 0.98341', '"high": 0.99341')
    assert not same(bootstrap, "10.0% faster (95% CI 9.1% to 10.9%)",
                    "10.0% faster (95% CI 9.1% to 11.6%)")  # 95 does not widen it
    assert same(qreg, "(Intercept) 7667.9 (7601.2, 7734.5)\nload 12.5 (-2.1, 27.0)",
                "(Intercept) 7666.5 (7601.9, 7733.0)\nload 12.6 (-2.0, 27.2)")
    assert not same(qreg, "(Intercept) 7667.9", "(Intercept) 7767.9")
    assert not same(qreg, "load 12.5 (-2.1, 27.0)", "load 13.5 (-2.1, 27.0)")
    obj = '{{\n  "estimate": 7948,\n  "low": {},\n  "high": 8228.1\n}}'
    assert same(qreg, obj.format(7667.9), obj.format(7666.5))  # 1% of 7667.9
    assert not same(qreg, obj.format(7667.9), obj.format(7567.9))
    # counts are counts: no rounding to flip
    assert not same(page, "trials: 3 ok", "trials: 4 ok")
    assert same(page, "estimate 1836", "estimate 1837")
    # the prose around examples is compared exactly
    assert not same("Prose says {}.\n", "3.1", "3.2")
