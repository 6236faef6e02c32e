"""Packed observations (issue 50 item 2): the 0/1 planes of ``dw-obs-v1`` as bits, unpacked exactly.

The packing (gamecore/bit_packing.py, Domain Wheel's declaration in dw_env/envs/packed.py) must give back every
observation byte for byte: random binary planes, real observations from random play on the small and the standard
map, and the non-binary planes (points, counters, distances, base-100 pairs) passed through as they are. The torch
unpacker (policies/packed_input.py) is what the network reads, so it must agree with numpy's.
"""

from __future__ import annotations

import numpy as np
import pytest

from dw_env.envs.observation import GLOBAL_FEATURES, LAND_FEATURES, describe_observation
from dw_env.envs.packed import binary_positions, observation_packing
from dw_env.envs.vector import DomainWheelVectorEnv
from dw_env.options import GameOptions
from gamecore.bit_packing import BitPacking

torch = pytest.importorskip("torch")

from policies.domain_wheel.network import same_turn_inputs, turn_fixed_bytes  # noqa: E402
from policies.packed_input import TorchUnpacker  # noqa: E402

SMALL = GameOptions(land_radius=1, map_radius=2)
STANDARD = GameOptions()


def _random_observations(packing: BitPacking, rows: int, seed: int) -> np.ndarray:
    """Return int8 observations: 0/1 at the binary positions, 0..127 at the others."""
    rng = np.random.default_rng(seed)
    obs = rng.integers(0, 128, size=(rows, packing.size)).astype(np.int8)
    obs[:, packing.binary] = rng.integers(0, 2, size=(rows, len(packing.binary)))
    return obs


def _played(options: GameOptions, num_envs: int, steps: int) -> tuple[np.ndarray, np.ndarray, BitPacking]:
    """Return (observations, packed observations) of two vector envs, one packed, driven by the same actions."""
    plain = DomainWheelVectorEnv(num_envs, options, seed=1, copy=True)
    packed = DomainWheelVectorEnv(num_envs, options, seed=1, copy=True, packed_observations=True)
    got, packed_got = [plain.reset()[0]], [packed.reset()[0]]
    for _ in range(steps):
        actions = plain.sample_actions()
        got.append(plain.step(actions)[0])
        packed_got.append(packed.step(actions)[0])
    assert packed.packing is not None
    return np.concatenate(got), np.concatenate(packed_got), packed.packing


@pytest.fixture(scope="module")
def small_games() -> tuple[np.ndarray, np.ndarray, BitPacking]:
    return _played(SMALL, 16, 60)  # games of max_rounds 150 on the small map: openings and middle games


@pytest.fixture(scope="module")
def standard_games() -> tuple[np.ndarray, np.ndarray, BitPacking]:
    return _played(STANDARD, 4, 40)


@pytest.mark.parametrize("options", [SMALL, STANDARD], ids=["small", "standard"])
def test_unpack_of_pack_gives_random_binary_planes_back(options: GameOptions) -> None:
    packing = observation_packing(options)
    obs = _random_observations(packing, 33, seed=5)
    packed = packing.pack(obs)
    assert packed.dtype == np.uint8 and packed.shape == (33, packing.packed_size)
    np.testing.assert_array_equal(packing.unpack(packed), obs)
    compiled = np.zeros_like(packed)
    assert packing.pack_into(obs, compiled, 2) == 0
    np.testing.assert_array_equal(compiled, packed)
    unpacked = TorchUnpacker(packing)(torch.from_numpy(packed))
    assert unpacked.dtype == torch.int8
    np.testing.assert_array_equal(unpacked.numpy(), obs)


def test_bits_follow_numpys_packbits_order_over_the_cell_planes() -> None:
    packing = observation_packing(SMALL)
    layout = describe_observation(SMALL)
    obs = _random_observations(packing, 3, seed=6)
    cells = obs[:, : layout.lands_offset].view(np.uint8)
    whole = layout.lands_offset // 8  # the cell planes' whole bytes: the packed row starts with them as they are
    np.testing.assert_array_equal(packing.pack(obs)[:, :whole], np.packbits(cells, axis=1)[:, :whole])


@pytest.mark.parametrize("games", ["small_games", "standard_games"])
def test_real_observations_round_trip_through_the_packed_env(games: str, request: pytest.FixtureRequest) -> None:
    obs, packed, packing = request.getfixturevalue(games)
    assert packed.dtype == np.uint8 and packed.shape == (len(obs), packing.packed_size)
    np.testing.assert_array_equal(packed, packing.pack(obs))  # the env's compiled packer, row for row
    np.testing.assert_array_equal(packing.unpack(packed), obs)
    np.testing.assert_array_equal(TorchUnpacker(packing)(torch.from_numpy(packed)).numpy(), obs)
    assert (obs[:, packing.rest] > 1).any()  # real games reach non-binary values: the check is not vacuous


def test_non_binary_planes_pass_through_as_bytes(small_games: tuple[np.ndarray, np.ndarray, BitPacking]) -> None:
    obs, packed, packing = small_games
    np.testing.assert_array_equal(packed[:, packing.bit_bytes :].view(np.int8), obs[:, packing.rest])
    layout = describe_observation(SMALL)
    lands = binary_positions(SMALL)[layout.lands_offset : layout.global_offset].reshape(layout.lands_shape)
    for name in ("points", "ring", "hold_me", "lib_next", "distance_after"):  # rules 8.1, 6.4, 7.3, 6.3
        assert not lands[:, LAND_FEATURES.index(name)].any(), name
    glob = binary_positions(SMALL)[layout.global_offset :]
    for name in ("score_me_hi", "score_me_lo", "turns_to_conquer", "round_lo", "countdown_left"):
        assert not glob[GLOBAL_FEATURES.index(name)], name
    wide = _random_observations(packing, 8, seed=7)
    wide[:, packing.rest] = np.arange(len(packing.rest)) % 128  # every byte value a plane may hold, 0..127
    np.testing.assert_array_equal(packing.unpack(packing.pack(wide)), wide)


def test_packed_standard_observation_with_its_mask_is_under_8_kb() -> None:
    layout = describe_observation(STANDARD)
    assert layout.bytes_per_observation == 19_853
    assert observation_packing(STANDARD).packed_size + layout.mask_size == 4_097


def test_a_value_other_than_0_or_1_on_a_binary_plane_is_reported_not_lost() -> None:
    packing = observation_packing(SMALL)
    obs = _random_observations(packing, 4, seed=8)
    obs[2, packing.binary[-1]] = 2
    out = np.zeros((4, packing.packed_size), np.uint8)
    assert packing.pack_into(obs, out, 1) == 1
    with pytest.raises(ValueError, match="other than 0 or 1"):
        packing.pack(obs)


def test_packed_rows_compare_like_unpacked_ones_under_the_turn_fixed_mask(
    small_games: tuple[np.ndarray, np.ndarray, BitPacking],
) -> None:
    """The trainer groups a turn's two decisions (rule 3.2) by comparing packed rows: the same answer."""
    obs, packed, packing = small_games
    cells = describe_observation(SMALL).num_cells
    keep = packing.byte_mask(turn_fixed_bytes(cells, packing.size))
    a, b = slice(0, len(obs) - 16), slice(16, len(obs))  # each game's row against its next step's
    want = same_turn_inputs(obs[a], obs[b], cells)
    got = ~(np.bitwise_xor(packed[a], packed[b]) & keep).any(1)
    assert want.any() and not want.all()
    np.testing.assert_array_equal(got, want)


def test_the_torch_unpacker_refuses_what_is_not_a_packed_batch() -> None:
    unpack = TorchUnpacker(observation_packing(SMALL))
    with pytest.raises(ValueError, match=r"uint8 tensor \[B, 498\], got torch.int8"):
        unpack(torch.zeros((2, 498), dtype=torch.int8))
    with pytest.raises(ValueError, match=r"got torch.uint8 \(2, 2420\)"):
        unpack(torch.zeros((2, 2420), dtype=torch.uint8))


@pytest.mark.parametrize("value", [1, "true", None, np.bool_(True)])
def test_the_vector_env_refuses_a_packed_flag_that_is_not_a_bool(value: object) -> None:
    with pytest.raises(ValueError, match="packed_observations must be true or false, got"):
        DomainWheelVectorEnv(2, SMALL, packed_observations=value)  # type: ignore[arg-type]


def test_the_unpacked_env_is_unchanged_by_default() -> None:
    env = DomainWheelVectorEnv(2, SMALL)
    obs, _, _ = env.reset()
    assert env.packing is None and obs.dtype == np.int8 and obs.shape == (2, describe_observation(SMALL).size)
