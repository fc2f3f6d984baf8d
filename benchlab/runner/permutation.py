"""Seeded permutations, bit for bit those of `numpy.random.default_rng(seed).permutation(n)`,
in pure Python.

Why: a run's plan draws one permutation per round from its seed, and numpy's import (55-100
ms here) costs more than a hundred executions of `true` before the first one runs; numpy
offers no lighter way to its Generator. So a plan of up to NUMPY_FROM elements is drawn here,
and a larger one by numpy's C shuffle, which is faster per element once imported (the figures
are in docs/run.md and benchmarks/plan_draw.py). Both give the same list, so which one drew a
plan never changes it (tests/runner/test_permutation.py).

What is reproduced, written from numpy's sources (numpy/random/bit_generator.pyx, _pcg64.pyx,
src/pcg64/pcg64.h and pcg64.c, src/distributions/distributions.c, _generator.pyx):

- SeedSequence(seed): the seed as 32-bit words, lowest first (0 is one word); mixed into a pool
  of four words with O'Neill's seed_seq hashing (hashmix, mix); `generate_state(4, uint64)`
  draws eight 32-bit words from the pool and pairs them little-endian (O'Neill, "Developing a
  seed_seq alternative", pcg-random.org, 2015).
- PCG64 (PCG XSL RR 128/64, O'Neill 2014, HMC-CS-2014-0905): state and increment from the four
  words (high word first), seeded as pcg_setseq_128_srandom_r does (inc = 2·initseq + 1, one
  step, add initstate, one step); each output steps the 128-bit LCG, then rotates
  high ^ low right by the top six bits of the state.
- Generator's 32-bit draws: a 64-bit output gives its low half now and keeps its high half
  for the next 32-bit draw (pcg64_next32).
- Generator.permutation(n) = shuffle(arange(n)): Fisher-Yates from the end, position i
  swapped with random_interval(i) — the smallest all-ones mask covering i, draws masked
  until one is at most i, 32-bit draws when i fits in 32 bits, else 64-bit ones.
"""

from __future__ import annotations

import operator

NUMPY_FROM = 100_000  # elements in a plan from which numpy draws it (docs/run.md: why there)

_M32 = 0xFFFF_FFFF
_M64 = 0xFFFF_FFFF_FFFF_FFFF
_M128 = (1 << 128) - 1
# SeedSequence's constants (bit_generator.pyx)
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4
# PCG's default 128-bit multiplier (pcg64.h: PCG_DEFAULT_MULTIPLIER_128)
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341


def seed_words(seed: int) -> list[int]:
    """The four 64-bit words `SeedSequence(seed).generate_state(4, numpy.uint64)` gives."""
    seed = operator.index(seed)  # an int, as numpy takes it (a float is a TypeError)
    if seed < 0:
        raise ValueError("expected non-negative integer")
    entropy = []
    while True:  # 32-bit words, lowest first; 0 is one word
        entropy.append(seed & _M32)
        seed >>= 32
        if not seed:
            break
    hash_const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal hash_const
        value ^= hash_const
        hash_const = (hash_const * _MULT_A) & _M32
        value = (value * hash_const) & _M32
        return value ^ (value >> 16)

    def mix(x: int, y: int) -> int:
        r = (_MIX_L * x - _MIX_R * y) & _M32
        return r ^ (r >> 16)

    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(_POOL)]
    for src in range(_POOL):  # every word into every other, so late bits reach early ones
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for word in entropy[_POOL:]:  # entropy beyond the pool, each word into every pool word
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(word))
    out32 = []
    hash_b = _INIT_B
    for i in range(2 * _POOL):  # generate_state(8 uint32 words), cycling through the pool
        value = pool[i % _POOL] ^ hash_b
        hash_b = (hash_b * _MULT_B) & _M32
        value = (value * hash_b) & _M32
        out32.append(value ^ (value >> 16))
    return [out32[2 * k] | (out32[2 * k + 1] << 32) for k in range(_POOL)]


class Permutations:
    """`numpy.random.default_rng(seed)` as far as `permutation(n).tolist()` goes: the same
    lists, in the same sequence of calls, from the same seed."""

    __slots__ = ("_state", "_inc", "_half")

    def __init__(self, seed: int) -> None:
        w = seed_words(seed)
        initstate = (w[0] << 64) | w[1]
        initseq = (w[2] << 64) | w[3]
        self._inc = ((initseq << 1) | 1) & _M128
        state = self._inc  # one step from 0
        state = (state + initstate) & _M128
        self._state = (state * _PCG_MULT + self._inc) & _M128
        self._half = -1  # the kept high half of the last 64-bit output, -1 when none

    def next64(self) -> int:
        """The next 64-bit output (PCG64's next_uint64; PCG XSL RR: step, then rotate
        high ^ low right by the state's top six bits)."""
        state = self._state = (self._state * _PCG_MULT + self._inc) & _M128
        hi = state >> 64
        x = (state ^ hi) & _M64
        return ((x << 64 | x) >> (hi >> 58)) & _M64

    def interval(self, bound: int) -> int:
        """A number from 0 to `bound` (below 2**64), as numpy's random_interval draws it: the
        smallest all-ones mask covering it, draws masked until one is at most `bound`, 32-bit
        draws when it fits in 32 bits, else 64-bit ones."""
        if bound == 0:
            return 0
        mask = (1 << bound.bit_length()) - 1
        if bound > _M32:
            while (value := self.next64() & mask) > bound:
                pass
            return value
        while True:
            if self._half >= 0:
                value, self._half = self._half & mask, -1
            else:
                x = self.next64()
                self._half = x >> 32
                value = x & mask
            if value <= bound:
                return value

    def permutation(self, n: int) -> list[int]:
        """A random order of range(n), as `Generator.permutation(n).tolist()`."""
        out = list(range(n))
        i = n - 1
        while i > _M32:  # 64-bit draws (a list that long needs 32 GB: never in a plan)
            j = self.interval(i)
            out[i], out[j] = out[j], out[i]
            i -= 1
        if i < 1:
            return out
        # 32-bit draws: each 64-bit output serves its low half, then its high half, and the
        # high half left over at the end is kept for the next call (pcg64_next32). next64 is
        # inlined: a call per draw would cost a third more.
        state, inc, mult, half = self._state, self._inc, _PCG_MULT, self._half
        m128, m64 = _M128, _M64
        mask = (1 << i.bit_length()) - 1  # the smallest all-ones mask covering i
        if half >= 0:
            j, half = half & mask, -1
            if j <= i:
                out[i], out[j] = out[j], out[i]
                i -= 1
                if i <= mask >> 1:
                    mask >>= 1
        while i:
            state = (state * mult + inc) & m128
            hi = state >> 64
            x = (state ^ hi) & m64
            x = ((x << 64 | x) >> (hi >> 58)) & m64
            j = x & mask  # the low half (mask < 2**32)
            if j <= i:
                out[i], out[j] = out[j], out[i]
                i -= 1
                if not i:
                    half = x >> 32
                    break
                if i <= mask >> 1:
                    mask >>= 1
            j = (x >> 32) & mask  # the high half
            if j <= i:
                out[i], out[j] = out[j], out[i]
                i -= 1
                if i <= mask >> 1:
                    mask >>= 1
        self._state, self._half = state, half
        return out


class NumpyPermutations:
    """numpy's own generator behind the same interface, for plans where its C shuffle wins."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        from benchlab.runner.blas import load_single_threaded

        load_single_threaded()  # the runner's numpy: no idle BLAS threads beside the commands
        import numpy as np

        self._rng = np.random.default_rng(seed)

    def permutation(self, n: int) -> list[int]:
        return self._rng.permutation(n).tolist()


def generator(seed: int, elements: int) -> Permutations | NumpyPermutations:
    """The faster of the two for drawing about `elements` elements in all: pure Python below
    NUMPY_FROM, where numpy's import would cost more than it saves, numpy's from there."""
    return NumpyPermutations(seed) if elements >= NUMPY_FROM else Permutations(seed)
