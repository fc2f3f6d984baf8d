"""`benchlab compare --ministat` (benchlab.cli.ministat_mode.run) against the real ministat.

tests/fixtures/ministat/ holds the outputs of the real ministat binary
(Debian's package, the 2015 port of FreeBSD's ministat) for every case in
cases.txt, made by make_golden.sh. Current FreeBSD ministat, which benchlab
reproduces, differs from that port in a few documented places
(DIFFERENCES.md), so:

- with flavor "2015" (computing as the port does) every output must equal the
  golden bytes: this checks the plot, table and comparison text in full;
- with the default (current FreeBSD), cases marked "same" must equal the golden
  bytes, and in the others every differing line must be one of the documented
  kinds, checked against an independent computation (exact rational moments,
  the STATS.md formula).
"""

# %-formatting on purpose: it follows C printf, as ministat prints.
# ruff: noqa: UP031

from __future__ import annotations

import getopt
import io
import math
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

from benchlab.cli.ministat_mode import run
from benchlab.data.readers.numbers import extract
from benchlab.data.source import open_source
from benchlab.stats.ministat import CONFIDENCE_LEVELS, LEGACY_2015, STUDENT_T

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "ministat"
INPUTS = FIXTURES / "inputs"
GOLDEN = FIXTURES / "golden"
KINDS = {"same", "percent", "median", "variance", "dashname", "error", "exit1"}

# The FreeBSD man-page example as printed in STATS.md §2.
MAN_PAGE = (Path(__file__).resolve().parents[1] / "fixtures" / "ministat"
      / "man_page_example.txt").read_text()


@dataclass(frozen=True)
class Case:
    name: str
    kinds: frozenset[str]
    files: tuple[str, ...]
    options: dict
    stdin: str | None

    def __str__(self) -> str:
        return self.name


def _parse_args(words: list[str]) -> tuple[list[str], dict, str | None]:
    """ministat's command line (getopt "AC:c:d:nqsw:") as run() arguments."""
    stdin = None
    if "<" in words:
        at = words.index("<")
        stdin = words[at + 1]
        del words[at:at + 2]
    opts, files = getopt.getopt(words, "AC:c:d:nqsw:")
    names = {"-A": "all_stats", "-n": "stats_only", "-q": "quiet", "-s": "separate"}
    options: dict = {}
    for opt, value in opts:
        if opt in names:
            options[names[opt]] = True
        elif opt == "-C":
            options["column"] = int(value)
        elif opt == "-c":
            options["confidence"] = value
        elif opt == "-d":
            options["delimiters"] = value
        elif opt == "-w":
            options["width"] = int(value)
    return files, options, stdin


def load_cases() -> list[Case]:
    cases = []
    for line in (FIXTURES / "cases.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, kinds, args = (part.strip() for part in line.split("|"))
        files, options, stdin = _parse_args(shlex.split(args))
        cases.append(Case(name, frozenset(kinds.split(",")), tuple(files), options, stdin))
    return cases


CASES = load_cases()
OUTPUT_CASES = [c for c in CASES if "error" not in c.kinds]
SAME_CASES = [c for c in OUTPUT_CASES if c.kinds == {"same"}]
DIFFERING_CASES = [c for c in OUTPUT_CASES if c.kinds != {"same"}]
ERROR_CASES = [c for c in CASES if "error" in c.kinds]


def golden(case: Case) -> tuple[str, str, int]:
    return ((GOLDEN / f"{case.name}.out").read_text(), (GOLDEN / f"{case.name}.err").read_text(),
            int((GOLDEN / f"{case.name}.rc").read_text()))


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def run_case(case: Case, monkeypatch, **extra) -> tuple[int, str, str]:
    monkeypatch.chdir(INPUTS)
    _stdin(monkeypatch, (INPUTS / case.stdin).read_bytes() if case.stdin else b"")
    out, err = io.StringIO(), io.StringIO()
    rc = run(list(case.files), stdout=out, stderr=err, **case.options, **extra)
    return rc, out.getvalue(), err.getvalue()


def call(files, monkeypatch=None, stdin: bytes | None = None, expect: int | None = None,
         **options) -> tuple[int, str, str]:
    """Run ministat mode in-process: (exit code, stdout, stderr); `expect` asserts the code."""
    if stdin is not None:
        _stdin(monkeypatch, stdin)
    out, err = io.StringIO(), io.StringIO()
    rc = run(list(files), stdout=out, stderr=err, **options)
    if expect is not None:
        assert rc == expect, (files, options, rc, err.getvalue())
    return rc, out.getvalue(), err.getvalue()


def glibc_nan_as_freebsd(text: str) -> str:
    """glibc prints a negative NaN as "-nan"; FreeBSD's printf (and Python) print "nan".

    In a padded table field ("%13.8g") the width stays the same.
    """
    padded = re.sub(r"(  +)-nan", lambda match: match.group(1) + " nan", text)
    return padded.replace("-nan", "nan")


# --- the fixture set itself -------------------------------------------------

def test_fixture_set_is_complete():
    assert len(CASES) >= 60
    assert len({c.name for c in CASES}) == len(CASES)
    for case in CASES:
        assert case.kinds <= KINDS, case
        for suffix in ("out", "err", "rc"):
            assert (GOLDEN / f"{case.name}.{suffix}").is_file(), (case, suffix)
        for name in case.files + ((case.stdin,) if case.stdin else ()):
            assert name == "-" or (INPUTS / name).is_file() or "exit1" in case.kinds, name
    assert "20150715" in (GOLDEN / "VERSION").read_text()


def test_man_page_case_is_the_stats_md_example():
    (case,) = [c for c in CASES if c.name == "man_page"]
    assert golden(case)[0] == MAN_PAGE


# --- byte for byte -------------------------------------------------------------

@pytest.mark.parametrize("case", OUTPUT_CASES, ids=str)
def test_2015_flavor_equals_the_debian_binary(case, monkeypatch):
    """Computing as the 2015 port does, every output is the golden bytes."""
    rc, out, err = run_case(case, monkeypatch, flavor=LEGACY_2015)
    g_out, g_err, g_rc = golden(case)
    assert (rc, err) == (g_rc, g_err)
    assert out == glibc_nan_as_freebsd(g_out)


@pytest.mark.parametrize("case", SAME_CASES, ids=str)
def test_current_equals_golden_where_versions_agree(case, monkeypatch):
    rc, out, err = run_case(case, monkeypatch)
    g_out, g_err, g_rc = golden(case)
    assert (rc, out, err) == (g_rc, g_out, g_err)


def test_man_page_example(monkeypatch):
    monkeypatch.chdir(INPUTS)
    assert call(["iguana", "chameleon"], separate=True, width=60) == (0, MAN_PAGE, "")


# --- where current FreeBSD differs from the 2015 port --------------------------

def _values(case: Case) -> list[list[float]]:
    column = case.options.get("column", 1)
    delimiters = case.options.get("delimiters", " \t")
    files = list(case.files) or ["-"]
    sets = []
    for name in files:
        path = INPUTS / (case.stdin if name == "-" else name)
        sets.append(extract(open_source(str(path)), column, delimiters)[0])
    return sets


def _exact_moments(values):
    fractions = [Fraction(v) for v in values]
    return statistics.mean(fractions), statistics.variance(fractions)


def _exact_comparison(cand, base, pct):
    """STATS.md §2 from exact moments: (diff, e, percent, percent half-width, pooled s)."""
    (md, vd), (mr, vr) = _exact_moments(cand), _exact_moments(base)
    nd, nr = len(cand), len(base)
    df = nd + nr - 2
    t = STUDENT_T[df if df <= 100 else 0][CONFIDENCE_LEVELS.index(pct)]
    pooled = math.sqrt(((nd - 1) * vd + (nr - 1) * vr) / df)
    e = t * pooled * math.sqrt(1 / nd + 1 / nr)
    re = t * math.sqrt(float(((nd - 1) * vd + (nr - 1) * vr * (md / mr) ** 2) / df)
                       * (1 / nd + 1 / nr))
    md, mr = float(md), float(mr)
    return md - mr, e, 100 * (md - mr) / mr, 100 * re / mr, pooled


def _split(text: str, nsets: int) -> tuple[list[str], list[str], list[str]]:
    """(legend, plot, table) lines of a ministat output."""
    lines = text.splitlines()
    legend, rest = lines[:nsets], lines[nsets:]
    if rest and rest[0].startswith("[no plot"):
        return legend, rest[:1], rest[1:]
    if rest and rest[0].startswith("+-"):
        end = 1 + next(i for i, line in enumerate(rest[1:]) if line.startswith("+-"))
        return legend, rest[:end + 1], rest[end + 1:]
    return legend, [], rest


def _no_closer(ours: float, theirs: float, exact: float) -> bool:
    """ours is at least as close to the exact value as the 2015 port's (NaN is far)."""
    def dist(x):
        return math.inf if math.isnan(x) else abs(x - exact)
    return dist(ours) <= dist(theirs)


@pytest.mark.parametrize("case", DIFFERING_CASES, ids=str)
def test_current_differs_only_in_documented_lines(case, monkeypatch):
    rc, out, err = run_case(case, monkeypatch)
    g_out, g_err, g_rc = golden(case)
    assert (rc, err) == (g_rc, g_err)
    sets = _values(case)
    pct = float(case.options.get("confidence", 95))
    seen: set[str] = set()

    legend, plot, table = _split(out, len(sets))
    g_legend, g_plot, g_table = _split(g_out, len(sets))
    if legend != g_legend:
        assert "dashname" in case.kinds
        assert [line.replace(" -", " <stdin>") for line in legend] == g_legend
        seen.add("dashname")
    if plot != g_plot:
        # The M moves with the median; a last-bit change of mean +- stddev moves
        # the range and can move a point across a column boundary. The drawing
        # itself is checked byte for byte by the 2015-flavor test.
        assert case.kinds & {"median", "variance"}, plot
        seen.add("plot")

    assert len(table) == len(g_table)
    current = -1
    for ours, theirs in zip(table, g_table, strict=True):
        if re.match(r"^. +\d+ ", ours):
            current = "x+*%#@O".index(ours[0])
        if ours == theirs:
            continue
        values = sets[current]
        if re.match(r"^. +\d+ ", ours):
            fields, g_fields = ours.split(), theirs.split()
            assert fields[:4] + fields[5:6] == g_fields[:4] + g_fields[5:6]  # sym N Min Max Avg
            if fields[4] != g_fields[4]:
                assert "median" in case.kinds and len(values) % 2 == 0
                assert fields[4] == "%.8g" % statistics.median(values)
                seen.add("median")
            if fields[6] != g_fields[6]:
                assert "variance" in case.kinds
                exact = float(statistics.stdev(Fraction(v) for v in values))
                assert _no_closer(float(fields[6]), float(g_fields[6]), exact)
                seen.add("variance")
        elif re.match(r"^\t\S+% \+/- \S+%$", ours):
            assert "percent" in case.kinds
            _, e, p, p_hw, _ = _exact_comparison(values, sets[0], pct)
            assert ours == "\t%g%% +/- %g%%" % (p, p_hw)
            if "variance" not in case.kinds:  # the port printed e scaled to a percentage
                assert theirs == "\t%g%% +/- %g%%" % (p, 100 * e / float(
                    _exact_moments(sets[0])[0]))
            seen.add("percent")
        elif ours.startswith("\t(Student's t, pooled s = ") or " +/- " in ours:
            assert "variance" in case.kinds
            diff, e, _, _, pooled = _exact_comparison(values, sets[0], pct)
            exact = pooled if "pooled" in ours else e
            number = re.compile(r"[-+0-9.e]+(?=\)?$)")
            assert _no_closer(float(number.search(ours).group()),
                              float(number.search(theirs).group()), exact)
            seen.add("variance")
        else:
            pytest.fail(f"undocumented difference: {ours!r} vs {theirs!r}")
    if "plot" in seen:
        seen.add("median" if "median" in case.kinds else "variance")
    # Every kind a case claims must show up, so the annotations stay honest.
    assert case.kinds <= seen, (case.kinds, seen)


# --- errors ----------------------------------------------------------------------

@pytest.mark.parametrize("case", ERROR_CASES, ids=str)
def test_errors_like_ministat(case, monkeypatch):
    rc, out, err = run_case(case, monkeypatch)
    g_out, g_err, g_rc = golden(case)
    assert out == g_out == ""
    assert rc == 2
    assert g_rc == (1 if "exit1" in case.kinds else 2)
    assert err.endswith("\n") and err.count("\n") == 1, err
    first = g_err.splitlines()[0]
    if first.startswith("ministat: Cannot open "):
        assert err == "benchlab: no-such-file.txt: no such file\n"
    elif first.startswith("ministat: "):
        assert err == "benchlab: " + first[len("ministat: "):] + "\n"
    elif first.startswith("Dataset "):
        assert err == first + "\n"
    else:  # a usage message: ministat's complaint, then its usage text
        assert err.startswith("benchlab: " + first)


# --- options ------------------------------------------------------------------------

def test_quiet_leaves_out_legend_and_header(monkeypatch):
    monkeypatch.chdir(INPUTS)
    files = ["set1.txt", "set2.txt", "set3.txt"]
    g_n = (GOLDEN / "kamp_user_n.out").read_text().splitlines(keepends=True)
    assert call(["current_user.txt", "buf_work_user.txt"], stats_only=True, quiet=True) == (
        0, "".join(g_n[3:]), "")
    full = call(files, expect=0)[1].splitlines(keepends=True)
    quiet = call(files, quiet=True, expect=0)[1].splitlines(keepends=True)
    header = full.index("    N           Min           Max        Median           Avg"
                        "        Stddev\n")
    assert quiet == full[3:header] + full[header + 1:]
    assert call(files, quiet=True, all_stats=True, expect=0)[1] == "".join(full[header + 1:])


def test_all_stats_keeps_the_comparisons(monkeypatch):
    monkeypatch.chdir(INPUTS)
    rc, out, _ = call(["set1.txt", "set2.txt"], all_stats=True)
    assert rc == 0 and "+----" not in out and "Difference at 95.0% confidence" in out
    rc, out, _ = call(["set1.txt", "set2.txt"], stats_only=True)
    assert rc == 0 and "+----" not in out and "confidence" not in out


@pytest.mark.parametrize("text", ["95", "95.0", "9.5e1", " 95", "0x5f", "+95"])
def test_confidence_is_parsed_like_strtod(text, monkeypatch):
    monkeypatch.chdir(INPUTS)
    rc, out, _ = call(["iguana", "chameleon"], confidence=text)
    assert rc == 0 and out.endswith("No difference proven at 95.0% confidence\n")


@pytest.mark.parametrize(("text", "message"), [
    ("", "No support for confidence level"),
    ("95%", "Not a floating point number"),
    ("95 ", "Not a floating point number"),
    ("97.5", "No support for confidence level"),
])
def test_confidence_errors(text, message):
    rc, out, err = call(["x"], confidence=text)
    assert (rc, out) == (2, "") and err.startswith("benchlab: " + message)


def test_too_many_datasets_is_checked_before_reading():
    rc, out, err = call([f"no-such-{i}" for i in range(8)])
    assert (rc, out, err) == (2, "", "benchlab: Too many datasets.\n")


def test_default_width_on_a_terminal_follows_columns(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.chdir(INPUTS)
    monkeypatch.setenv("COLUMNS", "50")
    out = Terminal()
    assert run(["iguana", "chameleon"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue().splitlines()[2] == "+" + "-" * 50 + "+"
    monkeypatch.delenv("COLUMNS")
    plain = io.StringIO()
    assert run(["iguana", "chameleon"], stdout=plain, stderr=io.StringIO()) == 0
    assert plain.getvalue().splitlines()[2] == "+" + "-" * 74 + "+"


# --- standard input ----------------------------------------------------------------

def test_no_files_reads_standard_input(monkeypatch):
    data = (INPUTS / "iguana").read_bytes()
    rc, out, _ = call([], monkeypatch, stdin=data, stats_only=True)
    assert rc == 0 and out.startswith("x <stdin>\n")


def test_explicit_dash_is_named_dash_like_current_freebsd(monkeypatch):
    monkeypatch.chdir(INPUTS)
    data = (INPUTS / "iguana").read_bytes()
    rc, out, _ = call(["-", "chameleon"], monkeypatch, stdin=data, stats_only=True)
    assert rc == 0 and out.startswith("x -\n+ chameleon\n")


def test_too_few_points_on_stdin(monkeypatch):
    rc, out, err = call([], monkeypatch, stdin=b"1\n2\n")
    assert (rc, out, err) == (2, "", "Dataset <stdin> must contain at least 3 data points\n")


# --- deliberate differences and robustness -------------------------------------------

@pytest.mark.parametrize(("text", "line", "what"), [
    ("1\n2\nnan\n4\n", 3, "NaN"),
    ("1\n2\n3\n-inf\n", 4, "an infinite value"),
    ("# c\n1\n1e400\n3\n", 3, "an infinite value"),
    ("1\nNAN(0x1)\n2\n3\n", 2, "NaN"),
])
def test_nan_and_infinity_are_refused(tmp_path, text, line, what):
    path = tmp_path / "v.txt"
    path.write_text(text)
    rc, out, err = call([str(path)])
    assert (rc, out) == (2, "")
    assert err == (f"benchlab: {path}:{line}: {what} is refused in ministat mode "
                   "(ministat cannot compute with it)\n")


def test_invalid_data_is_reported_before_nan(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("nan\n1\n2\nx\n")
    assert call([str(path)])[::2] == (2, f"benchlab: Invalid data on line 4 in {path}\n")


@pytest.mark.parametrize("width", [0, 1])
def test_plot_narrower_than_two_is_refused(width, monkeypatch):
    monkeypatch.chdir(INPUTS)
    rc, out, err = call(["iguana", "chameleon"], width=width)
    assert (rc, out) == (2, "") and err.startswith("benchlab: A plot needs a width of at least 2")
    assert call(["iguana", "chameleon"], width=width, all_stats=True)[0] == 0
    assert call(["iguana", "chameleon"], width=width, stats_only=True)[0] == 0


@pytest.mark.parametrize(("setup", "message"), [
    (lambda p: None, "benchlab: {p}: no such file\n"),
    (lambda p: p.mkdir(), "benchlab: {p}: is a directory, not a file\n"),
    (lambda p: p.write_bytes(b"1\n\x00\x01\n"),
     "benchlab: {p}: binary content, not a text file of measurements\n"),
])
def test_unreadable_inputs_give_one_line(tmp_path, setup, message):
    path = tmp_path / "data"
    setup(path)
    rc, out, err = call([str(path)])
    assert (rc, out, err) == (2, "", message.format(p=path))


def test_all_files_are_opened_before_any_is_read(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("x\n")
    rc, _, err = call([str(bad), str(tmp_path / "missing")])
    assert rc == 2 and err == f"benchlab: {tmp_path / 'missing'}: no such file\n"


def test_overflowing_values_give_a_message_not_a_traceback(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_text("-1e308\n0\n1e308\n")
    rc, out, err = call([str(path)])
    assert (rc, out) == (2, "") and err.startswith("benchlab: cannot draw the plot:")
    rc, out, err = call([str(path)], all_stats=True)
    assert rc == 0 and out.splitlines()[-1].endswith("inf")


def test_column_and_delimiters(monkeypatch):
    monkeypatch.chdir(INPUTS)
    rc, out, _ = call(["current.csv"], column=3, delimiters=",", stats_only=True, quiet=True)
    assert (rc, out) == (0, "x   3        1965.8       1972.63       1969.07     1969.1667"
                            "      3.416026\n")


# --- against the installed binary, if any ----------------------------------------------

@pytest.mark.skipif(shutil.which("ministat") is None,
                    reason="the ministat package is not installed")
def test_random_cases_equal_the_installed_binary(tmp_path):
    """Random data sets and options; flavor "2015" must print what the binary prints."""
    rng = random.Random(20150715)
    for _ in range(150):
        files = []
        scale = 10 ** rng.randint(-3, 6)
        for i in range(rng.randint(1, 7)):
            n = rng.choice([3, 4, 5, 7, 10, 25, 60])
            kind = rng.random()
            if kind < 0.5:
                values = [rng.randint(0, 10) * scale for _ in range(n)]
            elif kind < 0.75:
                values = [round(rng.gauss(100 + i, 3), rng.randint(0, 3)) for _ in range(n)]
            else:
                values = [rng.uniform(-1, 1) * scale for _ in range(n)]
            path = tmp_path / f"f{i}"
            path.write_text("".join(f"{v!r}\n" for v in values))
            files.append(str(path))
        argv, options = [], {}
        if rng.random() < 0.3:
            argv.append("-s")
            options["separate"] = True
        if rng.random() < 0.3:
            width = rng.randint(2, 120)
            argv += ["-w", str(width)]
            options["width"] = width
        if rng.random() < 0.3:
            level = rng.choice(["80", "90", "95", "98", "99", "99.5"])
            argv += ["-c", level]
            options["confidence"] = level
        real = subprocess.run(["ministat", *argv, *files], capture_output=True, text=True,
                              env={**os.environ, "LC_ALL": "C"}, check=False)
        rc, out, _ = call(files, flavor=LEGACY_2015, **options)
        assert (rc, out) == (real.returncode, glibc_nan_as_freebsd(real.stdout)), (argv, files)


# --- start-up cost --------------------------------------------------------------------------

def test_ministat_stats_and_report_do_not_import_numpy():
    code = ("import sys, benchlab.stats.ministat, benchlab.report.ministat; "
            "sys.exit('numpy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0


def test_ministat_mode_does_not_import_numpy():
    code = "import sys, benchlab.cli.ministat_mode; sys.exit('numpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0


def test_help_does_not_import_numpy():
    """`benchlab --help` builds every command's parser; none may load numpy to do it."""
    code = ("import sys, contextlib, io\nfrom benchlab.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
            "sys.exit('numpy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0
