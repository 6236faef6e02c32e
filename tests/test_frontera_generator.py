"""The map generator ``frontera-gen/1`` (spec 2.3, G-1..G-10): known answers, golden maps, determinism, invariants."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from frontera_env.board import SIZES, SYMBOLS, FronteraMap
from frontera_env.errors import GeneratorError
from frontera_env.generator import CONSTANTS, generate, grid, hex_distance, normalise_code
from frontera_env.map_file import canonical_text, check_map, parse_map, reference_text
from frontera_env.prng import SplitMix64, fnv1a64

REFERENCE_CODES = {"small": "CHICO-1", "medium": "MEDIANO-1", "large": "GRANDE-1"}
ROOT = Path(__file__).resolve().parent.parent


def test_g1_fnv1a64_known_answers() -> None:
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert fnv1a64(b"FRONTERA/small/CHICO-1/0") == 0xCA88A4DCAB242FDC
    assert fnv1a64(b"a") == 0xAF63DC4C8601EC8C  # the FNV authors' test vector


def test_g1_splitmix64_known_answers() -> None:
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_g1_below_is_next_mod_n_and_shuffle_swaps_from_the_top() -> None:
    a, b = SplitMix64(7), SplitMix64(7)
    assert [a.below(10) for _ in range(5)] == [b.next() % 10 for _ in range(5)]
    xs, rng, ref = [0, 1, 2, 3, 4], SplitMix64(3), SplitMix64(3)
    rng.shuffle(xs)
    want = [0, 1, 2, 3, 4]
    for i in range(4, 0, -1):
        j = ref.below(i + 1)
        want[i], want[j] = want[j], want[i]
    assert xs == want and sorted(xs) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_g1_to_g10_reproduce_the_reference_maps_byte_for_byte(size: str) -> None:
    assert canonical_text(generate(size, REFERENCE_CODES[size])) == reference_text(size)


def test_g1_normalisation_ignores_case_and_surrounding_spaces() -> None:
    assert normalise_code("  chico-1\t") == "CHICO-1"
    assert generate("small", " chico-1 ") == generate("small", "CHICO-1")


@pytest.mark.parametrize("code", ["", "   ", "CHICO_1", "CHICO 1", "A" * 33, "AÑO", None, 17])
def test_g1_bad_world_codes_are_refused_naming_the_code_and_the_pattern(code: object) -> None:
    with pytest.raises(GeneratorError, match=r"world code .* is not allowed; allowed: 1-32 characters from A-Z, 0-9"):
        generate("small", code)  # type: ignore[arg-type]
    if isinstance(code, str) and code.strip():
        with pytest.raises(GeneratorError, match=repr(code)[:20].replace("(", r"\(")):
            normalise_code(code)


def test_g1_unknown_size_is_refused() -> None:
    with pytest.raises(GeneratorError, match=r"map size 'huge' is not known; allowed: small, medium, large"):
        generate("huge", "CHICO-1")


def test_g1_the_same_code_on_another_size_gives_an_unrelated_map() -> None:
    small, medium = generate("small", "MEDIANO-1"), generate("medium", "MEDIANO-1")
    assert [t.name for t in small.territories[:5]] != [t.name for t in medium.territories[:5]]
    assert small.territories[0].cells != medium.territories[0].cells


def test_g1_generation_is_deterministic_across_processes_and_hash_seeds() -> None:
    """Another interpreter with other PYTHONHASHSEED values writes the same bytes (sets never leak order)."""
    codes = [("small", "SEMILLA-7"), ("medium", "X"), ("large", "0-0")]
    here = [hashlib.sha256(canonical_text(generate(s, c)).encode()).hexdigest() for s, c in codes]
    script = (
        "import hashlib; from frontera_env.generator import generate; from frontera_env.map_file import canonical_text;"
        f"print(' '.join(hashlib.sha256(canonical_text(generate(s, c)).encode()).hexdigest() for s, c in {codes!r}))"
    )
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True
        )
        assert out.stdout.split() == here


def test_g2_grid_cells_in_canonical_order_interior_and_centre_pool() -> None:
    g = grid(15)
    assert len(g.cells) == 1 + 3 * 15 * 16
    assert list(g.cells) == sorted(g.cells, key=lambda c: (c[1], c[0]))
    assert sum(g.interior) == 1 + 3 * 14 * 15
    assert len(g.centre_pool) == 1 + 3 * 11 * 12
    centre = g.cells.index((0, 0))
    assert [g.cells[n] for n in g.neighbours[centre]] == [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]


def territory_connected(cells: tuple[tuple[int, int], ...]) -> bool:
    """Return whether a territory's cells are connected through shared edges."""
    mine, seen, stack = set(cells), {cells[0]}, [cells[0]]
    while stack:
        c = stack.pop()
        for n in mine:
            if n not in seen and hex_distance(c, n) == 1:
                seen.add(n)
                stack.append(n)
    return seen == mine


def check_generated_properties(fmap: FronteraMap, size: str) -> None:
    """Assert the properties of spec 2.3's list beyond M-1..M-10 (which check_map already asserted)."""
    assert (fmap.territory_count, fmap.region_count) == SIZES[size]
    assert sorted(len(r.territories) for r in fmap.regions) == sorted(CONSTANTS[size].template)
    assert 0 <= fmap.attempt < 64 and fmap.grid_radius == CONSTANTS[size].radius
    for t in fmap.territories:
        assert len(t.cells) >= 4, f"territory {t.id} has {len(t.cells)} cells"
        assert territory_connected(t.cells) and t.capital in t.cells
        assert t.card == SYMBOLS[t.id % 3]
    for r in fmap.regions:
        assert r.bonus == (len(r.territories) + 1) // 2
        counts = Counter(fmap.territories[t].card for t in r.territories)
        assert max(counts.values()) - min(counts.get(s, 0) for s in SYMBOLS) <= 1  # balanced inside each region
    cells = [c for t in fmap.territories for c in t.cells]
    assert len(cells) == len(set(cells))


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_generated_maps_pass_m1_to_m11_and_keep_the_generators_properties(size: str) -> None:
    """Ten codes per size: M-1..M-11 with the generated forms (template, land-connected regions), cells >= 4."""
    for k in range(10):
        fmap = generate(size, f"T{k}")
        check_map(fmap)  # M-1..M-11, incl. template sizes (M-3), regions connected by land (M-6)
        check_generated_properties(fmap, size)
        assert parse_map(canonical_text(fmap)) == fmap
