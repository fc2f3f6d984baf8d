"""A plain `benchlab compare` of two small files imports no heavy library (issue 11)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("matplotlib", "pandas", "scipy.stats", "statsmodels", "pyarrow")


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown"])
def test_small_compare_imports_nothing_heavy(fmt):
    code = ("import sys, contextlib, io\nfrom benchlab.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    code = main(['compare', 'examples/kamp/current.txt', "
            f"'examples/kamp/buf_work.txt', '--unit', 's', '--format', '{fmt}'])\n"
            f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
            "print(code, heavy)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "0 []", out


@pytest.mark.parametrize("commands", [["true"], ["true", "true 1"]])
def test_quick_mode_imports_no_scipy(commands):
    """Quick mode's summary (one command) and paired compare (two: Fieller's t, the
    signed-rank test) compute Student's t and the signed-rank p without scipy (issue 26)."""
    code = ("import sys, contextlib, io\nfrom benchlab.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), "
            "contextlib.redirect_stderr(io.StringIO()):\n"
            f"    code = main(['run', '--runs', '3', '--quiet', '--', *{commands!r}])\n"
            "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'scipy', "
            "'statsmodels', 'pandas', 'matplotlib'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "0 []", out


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
