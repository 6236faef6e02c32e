"""The game PRNG (spec G-1, section 9's vectors) and the state's copy (spec 0.4)."""

from __future__ import annotations

import numpy as np
import pytest

from frontera_env.prng import SplitMix64, fnv1a64
from frontera_env.state import State


def test_G1_splitmix64_known_answers() -> None:
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_G1_fnv1a64_known_answers() -> None:
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert fnv1a64(b"FRONTERA/small/CHICO-1/0") == 0xCA88A4DCAB242FDC


def test_G1_below_is_next_mod_n_and_shuffle_swaps_from_the_end() -> None:
    a, b = SplitMix64(99), SplitMix64(99)
    assert [a.below(7) for _ in range(5)] == [b.next() % 7 for _ in range(5)]
    xs, ref = list(range(6)), list(range(6))
    a.shuffle(xs)
    for i in range(5, 0, -1):
        j = b.next() % (i + 1)
        ref[i], ref[j] = ref[j], ref[i]
    assert xs == ref


@pytest.mark.parametrize("seed", [-1, 1 << 64, 1.5, True, "7"])
def test_G1_seed_out_of_range_is_refused_naming_it(seed: object) -> None:
    with pytest.raises(ValueError, match="0..2\\*\\*64-1"):
        SplitMix64(seed)  # type: ignore[arg-type]


def test_state_copy_is_deep_and_equal() -> None:
    st = State.empty(3, 10, seed=5)
    twin = st.copy()
    assert twin.equals(st)
    twin.armies[0] = 9
    twin.rng.next()
    assert st.armies[0] == 1 and st.rng.state == 5 and not twin.equals(st)
    assert st.hand.shape == (3, 12) and st.owner.dtype == np.int8 and st.armies.dtype == np.int32
