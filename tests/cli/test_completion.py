"""`benchlab completion SHELL` prints a script that real shells complete with (issue 22):
commands, options, choices and file names, driven through bash's and fish's own
completion machinery."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.cli.completion import SHELLS, names_a_file
from benchlab.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]

# One bash: benchlab is this checkout's, the script is what `benchlab completion bash`
# prints, and `comp WORDS...` calls the function `complete -p benchlab` names, as bash
# does on Tab, printing the words it offers (sorted) after the line typed.
BASH_DRIVER = r"""
benchlab() { PYTHONPATH="$ROOT" "$PYTHON" -m benchlab "$@"; }
source <(benchlab completion bash) || exit 9
fn=$(complete -p benchlab | sed -E 's/.* -F ([^ ]+) .*/\1/')
comp() {
    COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
    "$fn" benchlab "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s|%s\n' "$*" "$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')"
}
comp benchlab com
comp benchlab compa
comp benchlab compare --for
comp benchlab compare --form
comp benchlab compare --format ''
comp benchlab compare --statistic m
comp benchlab compare o
comp benchlab compare old.txt --plot n
comp benchlab history c
comp benchlab history add --d
"""


@pytest.fixture(scope="module")
def bash_offers(tmp_path_factory) -> dict[str, list[str]]:
    """What bash offers for each line of BASH_DRIVER, in a folder with two files."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    folder = tmp_path_factory.mktemp("completion")
    (folder / "old.txt").write_text("1\n")
    (folder / "new.txt").write_text("2\n")
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", BASH_DRIVER], cwd=folder,
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "ROOT": str(ROOT),
                               "PYTHON": sys.executable, "HOME": str(folder)})
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = (line.split("|") for line in done.stdout.splitlines())
    return {typed: offered.split() for typed, offered in lines}


def test_bash_completes_commands(bash_offers):
    # `completion` is left out of the scripts, so `com` means compare alone
    assert bash_offers["benchlab com"] == ["compare"]
    assert bash_offers["benchlab compa"] == ["compare"]
    assert bash_offers["benchlab history c"] == ["check", "compare"]


def test_bash_completes_options_and_their_choices(bash_offers):
    assert bash_offers["benchlab compare --for"] == ["--format"]  # --force: not offered
    assert bash_offers["benchlab compare --form"] == ["--format"]
    assert bash_offers["benchlab compare --format "] == ["bmf", "csv", "html", "json", "markdown",
                                                          "text"]
    assert bash_offers["benchlab compare --statistic m"] == ["mean", "median"]
    assert bash_offers["benchlab history add --d"] == ["--date", "--date-column", "--db"]


def test_bash_completes_file_arguments(bash_offers):
    assert bash_offers["benchlab compare o"] == ["old.txt"]
    assert bash_offers["benchlab compare old.txt --plot n"] == ["new.txt"]


def test_fish_completes_commands_options_and_choices(tmp_path, capsys):
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")
    assert main(["completion", "fish"]) == 0
    script = tmp_path / "benchlab.fish"
    script.write_text(capsys.readouterr().out)
    (tmp_path / "old.txt").write_text("1\n")
    lines = ["benchlab com", "benchlab compare --form", "benchlab compare --format ",
             "benchlab compare ol"]
    probe = "".join(f"complete -C '{line}' | cut -f1 | sort | string join ' '\n"
                    for line in lines)
    done = subprocess.run(["fish", "--no-config", "-c", f"function benchlab; end\n"
                           f"source {script}\n{probe}true\n"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    offered = done.stdout.splitlines()
    assert offered == ["compare", "--format", "bmf csv html json markdown text", "old.txt"]


@pytest.mark.parametrize("shell", ["zsh", "tcsh"])
def test_zsh_and_tcsh_scripts(shell, capsys):
    """Both are shtab's; zsh's is checked for syntax when zsh is here."""
    assert main(["completion", shell]) == 0
    text = capsys.readouterr().out
    assert "compare" in text and "--format" in text and "markdown" in text
    if shell == "zsh" and shutil.which("zsh"):
        done = subprocess.run(["zsh", "-n"], input=text, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr


def test_unknown_shell_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["completion", "nushell"])
    assert stop.value.code == 2
    assert "invalid choice: 'nushell'" in capsys.readouterr().err


def test_file_arguments_are_the_named_ones():
    """Every argument spelled as a file (FILE, STORE, the positional inputs) completes file
    names, and no number or column does."""
    marked, unmarked = set(), set()

    def walk(parser, path):
        for action in parser._actions:
            if action.choices and isinstance(action.choices, dict):
                for name, command in action.choices.items():
                    walk(command, f"{path} {name}")
                continue
            where = f"{path} {action.option_strings[-1] if action.option_strings else ''}"
            (marked if names_a_file(action) else unmarked).add(where.strip())

    walk(build_parser(every_command=True), "benchlab")
    assert {"benchlab compare", "benchlab compare --plot", "benchlab run",
            "benchlab run -o", "benchlab env --store", "benchlab history add --db",
            "benchlab worker --tls-key", "benchlab export"} <= marked
    assert {"benchlab compare --seed", "benchlab compare --by", "benchlab compare --format",
            "benchlab compare -c", "benchlab completion"} <= unmarked


def test_help_does_not_import_shtab():
    code = ("import sys\nfrom benchlab.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit as stop:\n    code = stop.code\n"
            "print(code, 'shtab' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.splitlines()[-1]
    assert out == "0 False"


def test_every_shell_is_shtabs():
    import shtab

    assert set(SHELLS) <= set(shtab.SUPPORTED_SHELLS)
