"""Running real processes: times and usage from wait4, failures, timeouts, flooding output."""

from __future__ import annotations

import time
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.runner.execute import MAX_LINE, TAIL_BYTES, OutputParser, run_process


def test_true_is_timed_and_succeeds():
    out = run_process(["true"])
    assert out.ok and out.exit_code == 0 and out.signal is None
    assert out.wall > 0  # how long is benchmarks/runner_overhead.py's question
    assert out.maxrss > 0 and out.user >= 0 and out.sys >= 0


def test_cpu_time_comes_from_the_child():
    out = run_process(["sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"])
    assert out.ok
    assert out.user + out.sys > 0.005
    assert out.wall >= 0.8 * (out.user + out.sys)


def test_exit_code_and_stderr_tail():
    out = run_process(["sh", "-c", "echo first >&2; echo 'last words' >&2; exit 3"])
    assert not out.ok and out.exit_code == 3
    assert out.error == "exit code 3"
    assert out.stderr_tail.endswith("last words\n")


def test_signal():
    out = run_process(["sh", "-c", "kill -9 $$"])
    assert out.signal == 9 and out.error == "killed by signal SIGKILL"


def test_missing_program_is_an_outcome_not_an_exception():
    out = run_process(["/nonexistent/program"])
    assert not out.ok and "cannot run" in out.error


# The two tests below tell "stopped at once" from "waited for the sleep" with bounds far from
# both (a loaded 2-core machine may take seconds to start and reap a process, not minutes).
SLEEP = 600
BOUND = 120


def test_timeout_kills_the_process_group():
    start = time.perf_counter()
    out = run_process(["sh", "-c", f"sleep {SLEEP}; echo never"], timeout=0.2)
    assert out.timed_out and out.error == "timed out after 0.2 s"
    assert 0.19 < out.wall < BOUND
    assert time.perf_counter() - start < BOUND


def test_descendant_holding_the_pipe_does_not_hang_the_run():
    start = time.perf_counter()
    out = run_process(["sh", "-c", f"sleep {SLEEP} & echo started >&2"])
    assert out.ok and out.wall < BOUND
    assert time.perf_counter() - start < BOUND


def test_flooding_stderr_is_read_with_bounded_memory():
    tracemalloc.start()
    out = run_process(["sh", "-c", "yes 'noise noise noise' | head -c 30000000 >&2; echo END >&2; "
                                "exit 1"])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert out.exit_code == 1
    assert len(out.stderr_tail.encode()) <= TAIL_BYTES
    assert out.stderr_tail.endswith("END\n")
    assert peak < 2_000_000  # 30 MB went through; far less was ever held


def test_flooding_stdout_lines_keep_only_the_expected_values():
    parser = OutputParser("regex", ("t",), r"t=(?P<t>\d+)", expected=3)
    line = "t=1 " + "x" * 2000
    tracemalloc.start()
    out = run_process(["sh", "-c", f"yes '{line}' | head -n 15000"], parser=parser,
                      timeout=300)  # a ceiling: 30 MB parsed, seconds on a loaded machine
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(parser.rows) == 3 and parser.extra == 15000 - 3
    assert not out.ok and "15000 values in the output where 3 were expected" in out.error
    assert peak < 4_000_000  # 30 MB went through


def test_a_line_without_end_is_bounded():
    parser = OutputParser("regex", ("t",), r"t=(?P<t>\d+)", expected=1)
    out = run_process(["sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo t=4"],
                      parser=parser)
    assert not out.ok and f"longer than {MAX_LINE // 1024} KiB" in out.error


def test_regex_values():
    parser = OutputParser("regex", ("a", "b"), r"a=(?P<a>[0-9.]+) b=(?P<b>[0-9.eE+-]+)", 2)
    out = run_process(["printf", "x\\na=1.5 b=2\\nnoise\\na=3 b=4e-3\\n"], parser=parser)
    assert out.ok
    assert out.rows == [{"a": 1.5, "b": 2.0}, {"a": 3.0, "b": 0.004}]


def test_json_lines_values():
    parser = OutputParser("json", ("ns",), None, 2)
    out = run_process(["printf", '{"ns": 12}\\nhello\\n{"other": 1}\\n{"ns": 13.5, "x": 2}\\n'],
                      parser=parser)
    assert out.ok and out.rows == [{"ns": 12.0}, {"ns": 13.5}]


def test_unparsable_output_is_a_failure():
    parser = OutputParser("json", ("ns",), None, 1)
    out = run_process(["printf", '{"ns": "fast"}\\n'], parser=parser)
    assert not out.ok and out.error.startswith("unparsable output")
    parser = OutputParser("regex", ("t",), r"t=(?P<t>\d+)", 2)
    out = run_process(["printf", "t=1\\n"], parser=parser)
    assert "1 value in the output where 2 were expected" in out.error


def test_environment_and_cwd(tmp_path):
    parser = OutputParser("regex", ("v",), r"(?P<v>\d+)", 2)
    (tmp_path / "f").write_text("7\n")
    out = run_process(["sh", "-c", "echo $VALUE; cat f"], cwd=str(tmp_path),
                      env={"VALUE": "41", "PATH": "/usr/bin:/bin"}, parser=parser)
    assert out.ok and out.rows == [{"v": 41.0}, {"v": 7.0}]


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.integers(0, 10**6), min_size=0, max_size=30),
       noise=st.lists(st.text(alphabet="abc xyz:", max_size=20), max_size=30),
       cuts=st.lists(st.integers(1, 40), max_size=20))
def test_parsing_does_not_depend_on_how_reads_split_the_output(values, noise, cuts):
    """The pipe may deliver the output in any chunks: the values parsed are the same."""
    lines = []
    for i, v in enumerate(values):
        lines.append(f"t={v}")
        if i < len(noise):
            lines.append(noise[i])
    data = ("\n".join(lines) + "\n").encode()
    whole = OutputParser("regex", ("t",), r"t=(?P<t>\d+)", len(values))
    whole.feed(data)
    whole.close()
    pieces = OutputParser("regex", ("t",), r"t=(?P<t>\d+)", len(values))
    at = 0
    for cut in cuts:
        pieces.feed(data[at:at + cut])
        at += cut
    pieces.feed(data[at:])
    pieces.close()
    assert whole.rows == pieces.rows == [{"t": float(v)} for v in values]
    assert whole.error is None and pieces.error is None
