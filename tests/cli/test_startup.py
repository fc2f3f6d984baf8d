"""A plain `benchlab compare` of two small files imports no heavy library (issue 11)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("matplotlib", "pandas", "scipy.stats", "statsmodels", "pyarrow")


FORMATS = ("text", "json", "csv", "markdown")
QUICK = (["true"], ["true", "true 1"])


def _heavy_after_each(calls: list[str], heavy: str) -> list[str]:
    """One fresh interpreter runs the `main(...)` calls in turn; after each it prints the
    exit code and which of the modules named by the expression `heavy` are loaded. A heavy
    import stays in sys.modules, so the call that made it shows it, and every call after:
    the cost of one interpreter's start-up, not one per call."""
    code = ["import sys, contextlib, io", "from benchlab.cli.main import main",
            "def loaded():", f"    return {heavy}"]
    for call in calls:
        code += ["with contextlib.redirect_stdout(io.StringIO()), "
                 "contextlib.redirect_stderr(io.StringIO()):",
                 f"    code = main({call})", "print(code, loaded())"]
    done = subprocess.run([sys.executable, "-c", "\n".join(code)], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == len(calls), (done.stdout, done.stderr)  # every call returned
    return lines


@pytest.fixture(scope="module")
def compares() -> dict[str, str]:
    """What each format's compare of two small files loaded, by format."""
    calls = [f"['compare', 'examples/kamp/current.txt', 'examples/kamp/buf_work.txt', "
             f"'--unit', 's', '--format', {fmt!r}]" for fmt in FORMATS]
    return dict(zip(FORMATS, _heavy_after_each(
        calls, f"[m for m in {HEAVY!r} if m in sys.modules]"), strict=True))


@pytest.mark.parametrize("fmt", FORMATS)
def test_small_compare_imports_nothing_heavy(compares, fmt):
    assert compares[fmt] == "0 []", compares


@pytest.fixture(scope="module")
def quick_runs() -> list[str]:
    calls = [f"['run', '--runs', '3', '--quiet', '--', *{commands!r}]" for commands in QUICK]
    return _heavy_after_each(calls, "sorted({m.split('.')[0] for m in sys.modules} & "
                                    "{'scipy', 'statsmodels', 'pandas', 'matplotlib'})")


@pytest.mark.parametrize("case", range(len(QUICK)), ids=["one", "two"])
def test_quick_mode_imports_no_scipy(quick_runs, case):
    """Quick mode's summary (one command) and paired compare (two: Fieller's t, the
    signed-rank test) compute Student's t and the signed-rank p without scipy (issue 26)."""
    assert quick_runs[case] == "0 []", quick_runs


def test_help_and_run_import_only_their_command():
    """`benchlab --help` imports no command's module, and `benchlab run` only run's (and
    quick mode's): each command's options are built when it is chosen (cli/commands.py)."""
    code = ("import sys, contextlib, io\nfrom benchlab.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    with contextlib.suppress(SystemExit):\n"
            "        main(['--help'])\n"
            "    first = sorted(m for m in sys.modules if m.startswith('benchlab.cli.'))\n"
            "    code = main(['run', '--dry-run', '--seed', '1', '--', 'true'])\n"
            "print(code, first, sorted(m for m in sys.modules if m.startswith('benchlab.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == ("0 ['benchlab.cli.commands', 'benchlab.cli.main'] ['benchlab.cli.commands', "
                   "'benchlab.cli.main', 'benchlab.cli.output_options', 'benchlab.cli.quick', "
                   "'benchlab.cli.run', 'benchlab.cli.run_steps', 'benchlab.cli.tls_options']"), out


def test_the_environment_record_names_numpy_without_importing_it():
    """The store's environment record gives numpy.__version__ read from numpy's own version
    file, so `benchlab run` need not import numpy before its first execution (issue 26)."""
    code = ("import sys\nfrom benchlab.runner.environment import numpy_version\n"
            "version = numpy_version()\nloaded = 'numpy' in sys.modules\nimport numpy\n"
            "print(version == numpy.__version__, loaded, numpy_version() == numpy.__version__)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "True False True", out


# The measured command looks at its parent, the runner, while it runs: how many of the
# runner's mappings are numpy's C core (numpy/_core/_multiarray_umath*.so), which numpy's
# first import loads.
PROBE = "grep -c _multiarray_umath /proc/$PPID/maps > {out}; true"


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux /proc")
@pytest.mark.parametrize("form, loaded", [("quick mode", False), ("experiment file", False),
                                          ("stopping rule", True)])
def test_run_loads_no_numpy_before_its_first_execution(tmp_path, form, loaded):
    """numpy's import (about 100 ms) waits until after the executions of a run that does
    not need it while running (issue 26): the runner's memory map, read by the measured
    command itself, holds no numpy during the executions. A stopping rule needs numpy
    between rounds, so its run loads it before the first (the probe sees it there)."""
    out = tmp_path / "maps.txt"
    probe = PROBE.format(out=out)
    if form == "quick mode":
        argv = ["run", "--runs", "2", "--warmup", "0", "-o", "s.db", "--", f"sh -c '{probe}'"]
    else:
        stop = '\nstop_when = { max_time = "1h" }' if form == "stopping rule" else ""
        (tmp_path / "e.toml").write_text(f'executions = 2{stop}\n[alternatives.probe]\n'
                                         f'command = ["sh", "-c", "{probe}"]\n')
        argv = ["run", "e.toml", "-o", "s.db"]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "benchlab", *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (int(out.read_text()) > 0) is loaded, (out.read_text(), done.stderr)


MODULES_BEFORE_FIRST_EXECUTION = 40  # benchlab's own (34 on 2026-11-27), with some slack


def test_quick_mode_imports_little_before_its_first_execution(tmp_path):
    """Every module `benchlab run --runs 1` imports before its first execution is the
    standard library's or the runner's own: no third-party package (numpy included), no
    analysis (stats, data, report), and at most MODULES_BEFORE_FIRST_EXECUTION of
    benchlab's (issue 26: they are the start-up every run pays before it measures)."""
    code = ("import sys\nbase = set(sys.modules)\nimport benchlab.runner.rounds as rounds\n"
            "seen = []\nreal = rounds.run_rounds\n"
            "def spy(*a, **k):\n    seen.append(set(sys.modules) - base)\n"
            "    return real(*a, **k)\n"
            "rounds.run_rounds = spy\nimport contextlib, io\n"
            "from benchlab.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), "
            "contextlib.redirect_stderr(io.StringIO()):\n"
            "    code = main(['run', '--runs', '1', '--warmup', '0', '-o', 'x.db', '--', "
            "'true'])\n"
            "new = seen[0]\nthird = {m.split('.')[0] for m in new} - "
            "set(sys.stdlib_module_names) - {'benchlab'}\n"
            "ours = sorted(m for m in new if m.startswith('benchlab'))\n"
            "print(code, sorted(third), len(ours), [m for m in ours if m.split('.')[1:2] "
            "in (['stats'], ['data'], ['report'], ['design'], ['history'])])")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, check=True).stdout.split(" ", 3)
    # exit 2: one execution is too few for the summary printed after (not this test's)
    assert out[0] in ("0", "2") and out[1] == "[]" and out[3].strip() == "[]", out
    assert 0 < int(out[2]) <= MODULES_BEFORE_FIRST_EXECUTION, out
