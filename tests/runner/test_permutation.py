"""runner/permutation.py against numpy itself: the seed's words, the raw 64-bit stream, the
bounded draws and every permutation, bit for bit, for seeds from 0 to beyond 2**128."""

from __future__ import annotations

import os
import pathlib
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.runner import permutation
from benchlab.runner.config import load_experiment
from benchlab.runner.permutation import (
    NUMPY_FROM,
    NumpyPermutations,
    Permutations,
    generator,
    seed_words,
)
from benchlab.runner.plan import make_plan, plan_size

EDGE_SEEDS = [0, 1, 2, 2**31, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64 + 7, 2**96 + 1,
              2**128 - 1, 2**128 + 5, 2**200 + 12345]
EDGE_SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 257, 1000]


def random_seeds(count: int, rnd: random.Random) -> list[int]:
    """Seeds of every width: one to eight 32-bit words (beyond the pool of four)."""
    return [rnd.getrandbits(rnd.choice([8, 32, 33, 64, 65, 100, 128, 129, 160, 256]))
            for _ in range(count)]


def test_seed_words_are_numpys_seed_sequence():
    for seed in EDGE_SEEDS + random_seeds(300, random.Random(1)):
        expected = np.random.SeedSequence(seed).generate_state(4, np.uint64).tolist()
        assert seed_words(seed) == expected, seed


def test_the_raw_stream_is_pcg64s():
    for seed in EDGE_SEEDS + random_seeds(40, random.Random(2)):
        mine = Permutations(seed)
        expected = np.random.PCG64(seed).random_raw(50).tolist()
        assert [mine.next64() for _ in range(50)] == expected, seed


def test_bounded_draws_are_random_interval_in_both_widths():
    # numpy's legacy RandomState over PCG64 draws bounded integers by the same masked
    # rejection (32-bit draws up to 2**32 - 1, 64-bit beyond), the only public way to reach
    # the 64-bit branch a permutation of 2**32 elements would take
    rnd = random.Random(3)
    for seed in (0, 2**64 + 7, 2**130 + 3):
        theirs = np.random.RandomState(np.random.PCG64(seed))
        mine = Permutations(seed)
        for _ in range(1500):
            bound = rnd.choice([rnd.randrange(2**64), rnd.randrange(2**32, 2**40),
                                rnd.randrange(2**32), rnd.randrange(300), 0, 2**32 - 1,
                                2**32, 2**64 - 1])
            expected = int(theirs.randint(0, bound + 1, dtype=np.uint64))
            assert mine.interval(bound) == expected, (seed, bound)


def test_permutations_are_numpys_for_2000_seeds_and_sizes():
    rnd = random.Random(4)
    pairs = [(s, n) for s in EDGE_SEEDS for n in EDGE_SIZES]
    pairs += [(s, rnd.choice([rnd.randrange(12), rnd.randrange(600)]))
              for s in random_seeds(2000 - len(pairs), rnd)]
    pairs += [(2**32, 2**16 + 1), (7, 2**16 + 1), (2**128 + 5, 10**5)]
    assert len(pairs) >= 2000
    for seed, n in pairs:
        expected = np.random.default_rng(seed).permutation(n).tolist()
        assert Permutations(seed).permutation(n) == expected, (seed, n)


def test_a_sequence_of_permutations_is_one_numpy_generator_drawing_them():
    # as a plan draws round after round: the 32-bit half a permutation leaves carries over
    rnd = random.Random(5)
    for seed in EDGE_SEEDS[:6] + random_seeds(30, rnd):
        sizes = [rnd.choice([0, 1, 2, 3, rnd.randrange(40), rnd.randrange(300)])
                 for _ in range(rnd.randrange(2, 30))]
        theirs = np.random.default_rng(seed)
        mine = Permutations(seed)
        for k, n in enumerate(sizes):
            assert mine.permutation(n) == theirs.permutation(n).tolist(), (seed, sizes, k)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**140),
       st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_any_seed_and_sequence_of_sizes_draws_numpys_permutations(seed, sizes):
    theirs = np.random.default_rng(seed)
    mine = Permutations(seed)
    for n in sizes:
        drawn = mine.permutation(n)
        assert drawn == theirs.permutation(n).tolist()
        assert sorted(drawn) == list(range(n))


def test_bad_seeds_are_refused_as_numpy_refuses_them():
    for bad, error in ((-1, ValueError), (-(2**70), ValueError), (1.5, TypeError),
                       ("7", TypeError)):
        with pytest.raises(error):
            Permutations(bad)  # type: ignore[arg-type]
        if isinstance(bad, int):  # numpy reads a string of digits; neither takes the rest
            with pytest.raises(error):
                np.random.default_rng(bad)
    assert Permutations(np.uint64(9)).permutation(20) == \
        np.random.default_rng(9).permutation(20).tolist()


def test_the_generator_is_chosen_by_the_number_of_elements():
    assert isinstance(generator(1, NUMPY_FROM - 1), Permutations)
    assert isinstance(generator(1, NUMPY_FROM), NumpyPermutations)
    numpys = generator(3, NUMPY_FROM)
    mine = generator(3, 0)
    for n in (5, 0, 17, 1, 2):
        assert numpys.permutation(n) == mine.permutation(n)


ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "experiments"
# every example experiment that parses: interleaved-random and blocked orders, factors,
# machines in both roles, several builds with build steps, counters
PLANNED = ["loop.toml", "jitter.toml", "machines.toml", "machines-level.toml", "counts.toml",
           "profiles.toml", "sleep.toml", "warming.toml", "failing.toml", "pinned.toml",
           "strides.toml"]


def plan_by(monkeypatch, e, seed: int, numpy_from: int) -> tuple[list, type]:
    """make_plan with the switch to numpy's generator at `numpy_from` elements, and the type
    of the generator that drew it."""
    monkeypatch.setattr(permutation, "NUMPY_FROM", numpy_from)
    used = []
    choose = permutation.generator

    def spy(seed: int, elements: int):
        used.append(choose(seed, elements))
        return used[-1]

    monkeypatch.setattr(permutation, "generator", spy)
    plan = make_plan(e, seed)
    monkeypatch.setattr(permutation, "generator", choose)
    assert len(used) == 1
    return plan, type(used[0])


def test_a_plan_is_the_same_whichever_generator_draws_it(monkeypatch):
    orders = set()
    for name in PLANNED:
        e = load_experiment(str(EXAMPLES / name))
        orders.add(e.order)
        for seed in (0, 1, 12345, 2**32 - 1, 2**63 + 11):
            pure, kind = plan_by(monkeypatch, e, seed, numpy_from=10**12)
            assert kind is Permutations
            numpys, kind = plan_by(monkeypatch, e, seed, numpy_from=0)
            assert kind is NumpyPermutations
            assert pure == numpys, (name, seed)
            assert len(pure) == plan_size(e)[0]
    assert orders == {"interleaved-random", "blocked"}  # the blocked order's draws too


def test_drawing_a_small_plan_imports_no_numpy():
    # in a fresh interpreter, as a quick-mode run plans: the experiment's parser and the plan
    code = textwrap.dedent("""
        import sys
        from benchlab.runner.config import parse_experiment
        from benchlab.runner.plan import make_plan
        from benchlab.runner.session import draw_seed
        e = parse_experiment('executions = 20\\n[factors]\\nn = [1, 2]\\n'
                             '[alternatives.a]\\ncommand = ["true", "{n}"]\\n'
                             '[alternatives.b]\\ncommand = ["false", "{n}"]\\n', "x.toml")
        plan = make_plan(e, draw_seed())
        assert len(plan) == 2 * 2 * 20, len(plan)
        assert "numpy" not in sys.modules, "numpy was imported"
        print("ok")
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
