"""Frontera map files (spec 2.1-2.2, 2.4): the reference maps pass M-1..M-11, each rule refuses a broken map.

Every broken map is a reference map (or a four-territory hand-made one) with one minimal change; the test
asserts the rule and the field path the message names, and that the value received is quoted.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from frontera_env.board import SIZES, SYMBOLS, win_threshold
from frontera_env.errors import MapError
from frontera_env.map_file import (
    MAX_MAP_BYTES,
    canonical_text,
    check_players,
    parse_map,
    read_map,
    reference_map,
    reference_text,
)

# spec 2.4's table: attempt, region sizes, land borders, sea links, directed edges, degree range, bytes, sha256
REFERENCE = {
    "small": ("CHICO-1", 1, [5, 5, 8, 4, 6, 7], 54, 5, 118, (2, 6), 9470, "5b751b91960f57e3"),
    "medium": ("MEDIANO-1", 0, [6, 8, 6, 9, 10, 5, 4, 7], 89, 7, 192, (1, 7), 14704, "c863248bf2b1ed27"),
    "large": ("GRANDE-1", 0, [8, 7, 6, 13, 10, 5, 12, 9, 10], 145, 8, 306, (2, 7), 21632, "8034788df0883790"),
}


@pytest.fixture(scope="module")
def small_data() -> dict[str, Any]:
    return json.loads(reference_text("small"))


def tiny() -> dict[str, Any]:
    """Return a valid hand-made map: regions A {0, 1} and B {2, 3}, land 0-1, 1-2, 2-3, sea 0-3."""
    land = [[1], [0, 2], [1, 3], [2]]
    sea: list[list[int]] = [[3], [], [], [0]]
    cards = ["galleon", "cannon", "balloon", "galleon"]
    return {
        "format": "frontera-map/1",
        "generator": "hand-made",
        "size": "custom",
        "world_code": "",
        "attempt": 0,
        "territory_count": 4,
        "region_count": 2,
        "win_threshold": 3,
        "regions": [
            {"id": 0, "name": "Norte", "bonus": 1, "territories": [0, 1]},
            {"id": 1, "name": "Sur", "bonus": 1, "territories": [2, 3]},
        ],
        "territories": [
            {"id": t, "name": f"T{t}", "region": t // 2, "land": land[t], "sea": sea[t], "card": cards[t]}
            for t in range(4)
        ],
        "sea_links": [[0, 3]],
    }


def refused(data: dict[str, Any], rule: str, field: str, *quoted: str) -> MapError:
    """Assert ``data`` is refused naming ``rule`` and ``field`` (and the ``quoted`` texts); return the error."""
    with pytest.raises(MapError) as info:
        parse_map(json.dumps(data))
    error = info.value
    assert (error.rule, error.field) == (rule, field), str(error)
    assert str(error).startswith(f"{rule}: {field}: ")
    for text in quoted:
        assert text in str(error)
    return error


def broken(data: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Return a deep copy of ``data`` with ``change`` applied."""
    data = copy.deepcopy(data)
    change(data)
    return data


def set_land(data: dict[str, Any], t: int, u: int, kind: str, present: bool) -> None:
    """Add or remove the pair (t, u) in both territories' ``kind`` lists, keeping them ascending."""
    for a, b in ((t, u), (u, t)):
        ids = set(data["territories"][a][kind])
        ids = ids | {b} if present else ids - {b}
        data["territories"][a][kind] = sorted(ids)
    if kind == "sea":
        data["sea_links"] = sorted([a["id"], b] for a in data["territories"] for b in a["sea"] if a["id"] < b)


# --------------------------------------------------------------------------------------------- reference maps
@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_reference_maps_pass_m1_to_m11_and_match_spec_2_4(size: str) -> None:
    code, attempt, region_sizes, land, sea, edges, degrees, size_bytes, sha = REFERENCE[size]
    text = reference_text(size)
    assert len(text.encode("utf-8")) == size_bytes
    assert hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] == sha
    fmap = reference_map(size)  # parse_map checks M-1..M-11
    assert (fmap.world_code, fmap.attempt, fmap.has_geometry) == (code, attempt, True)
    assert (fmap.territory_count, fmap.region_count) == SIZES[size]
    assert [len(r.territories) for r in fmap.regions] == region_sizes
    assert sum(len(t.land) for t in fmap.territories) == 2 * land
    assert len(fmap.sea_links) == sea
    assert len(fmap.edges) == edges == int(fmap.adjacency.sum())
    degree = [len(t.neighbours) for t in fmap.territories]
    assert (min(degree), max(degree)) == degrees


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_canonical_text_round_trips_the_reference_maps_byte_for_byte(size: str) -> None:
    assert canonical_text(reference_map(size)) == reference_text(size)


def test_edges_are_directed_sorted_by_source_then_target_spec_6_2() -> None:
    fmap = reference_map("small")
    assert list(fmap.edges) == sorted(fmap.edges)
    assert all((u, t) in fmap.edges for t, u in fmap.edges)
    assert not fmap.adjacency.flags.writeable
    assert fmap.adjacency[0].nonzero()[0].tolist() == list(fmap.territories[0].neighbours)


def test_hand_made_map_without_geometry_reads_and_round_trips() -> None:
    fmap = parse_map(json.dumps(tiny()))
    assert not fmap.has_geometry and fmap.win_threshold == win_threshold(4) == 3
    assert parse_map(canonical_text(fmap)) == fmap


def test_read_map_reads_a_file_and_names_it_in_errors(tmp_path: Any) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(reference_text("small"), encoding="utf-8")
    assert read_map(good) == reference_map("small")
    bad.write_text(json.dumps(broken(tiny(), lambda d: d.update(win_threshold=4))), encoding="utf-8")
    with pytest.raises(MapError, match=r"bad\.json: M-9: win_threshold: got 4; allowed: 3") as info:
        read_map(bad)
    assert info.value.rule == "M-9"


# --------------------------------------------------------------------------------------------- M-1..M-11
def test_m1_territory_ids_are_dense_and_in_order(small_data: dict[str, Any]) -> None:
    refused(broken(small_data, lambda d: d["territories"][3].update(id=4)), "M-1", "territories[3].id", "got 4")


def test_m1_region_ids_are_dense_and_in_order() -> None:
    refused(broken(tiny(), lambda d: d["regions"][1].update(id=7)), "M-1", "regions[1].id", "got 7")


def test_m2_duplicate_territory_name_is_refused(small_data: dict[str, Any]) -> None:
    name = small_data["territories"][0]["name"]
    data = broken(small_data, lambda d: d["territories"][5].update(name=name))
    refused(data, "M-2", "territories[5].name", repr(name), "territories[0].name")


def test_m2_region_may_not_share_a_territory_name() -> None:
    refused(broken(tiny(), lambda d: d["regions"][1].update(name="T0")), "M-2", "regions[1].name", "'T0'")


def test_m2_empty_name_is_refused() -> None:
    refused(broken(tiny(), lambda d: d["territories"][2].update(name="  ")), "M-2", "territories[2].name")


def test_m3_region_lists_exactly_its_members() -> None:
    refused(broken(tiny(), lambda d: d["regions"][0].update(territories=[0])), "M-3", "regions[0].territories")


def test_m3_territory_names_an_existing_region() -> None:
    refused(broken(tiny(), lambda d: d["territories"][1].update(region=2)), "M-3", "territories[1].region", "got 2")


def test_m3_every_region_has_two_territories_or_more() -> None:
    def one_territory_region(d: dict[str, Any]) -> None:
        d["territories"][3]["region"] = 2
        d["regions"][1]["territories"] = [2]
        d["regions"].append({"id": 2, "name": "Isla", "bonus": 1, "territories": [3]})
        d["region_count"] = 3

    refused(broken(tiny(), one_territory_region), "M-3", "regions[1].territories", "at least 2")


def test_m3_generated_maps_have_their_templates_region_sizes(small_data: dict[str, Any]) -> None:
    def move_territory_4_to_region_1(d: dict[str, Any]) -> None:
        d["territories"][4]["region"] = 1
        d["regions"][0]["territories"].remove(4)
        d["regions"][1]["territories"].insert(0, 4)

    refused(broken(small_data, move_territory_4_to_region_1), "M-3", "regions", "[4, 5, 5, 6, 7, 8]")


def test_m4_asymmetric_neighbour_is_refused(small_data: dict[str, Any]) -> None:
    data = broken(small_data, lambda d: d["territories"][2]["land"].remove(0))
    refused(data, "M-4", "territories[0].land", "territories[2].land does not list 0")


def test_m4_a_pair_is_never_both_land_and_sea(small_data: dict[str, Any]) -> None:
    refused(broken(small_data, lambda d: set_land(d, 0, 2, "sea", True)), "M-4", "territories[0].sea", "also in land")


@pytest.mark.parametrize(
    ("land", "why"), [([1, 1], "ascending"), ([2, 1], "ascending"), ([1, 4], "ids 0..3"), ([0, 1], "other than 0")]
)
def test_m4_neighbour_lists_ascending_unique_in_range_without_self(land: list[int], why: str) -> None:
    refused(broken(tiny(), lambda d: d["territories"][0].update(land=land)), "M-4", "territories[0].land", why)


def test_m4_neighbour_ids_are_integers() -> None:
    refused(broken(tiny(), lambda d: d["territories"][0].update(sea=["3"])), "M-4", "territories[0].sea[0]", "'3'")


def test_m5_disconnected_graph_is_refused() -> None:
    def cut(d: dict[str, Any]) -> None:
        set_land(d, 1, 2, "land", False)
        set_land(d, 0, 3, "sea", False)

    refused(broken(tiny(), cut), "M-5", "territories[2]", "'T2' cannot be reached")


def test_m6_disconnected_region_is_refused() -> None:
    def split_regions(d: dict[str, Any]) -> None:  # A = {0, 2}, B = {1, 3}: no edge inside either
        for t in d["territories"]:
            t["region"] = t["id"] % 2
        d["regions"][0]["territories"], d["regions"][1]["territories"] = [0, 2], [1, 3]

    refused(broken(tiny(), split_regions), "M-6", "regions[0].territories", "territory 2 cannot be reached")


def test_m6_generated_maps_connect_each_region_by_land_alone(small_data: dict[str, Any]) -> None:
    """A land border inside a region turned into a sea link: fine by M-6, not by its generated form."""
    fmap = reference_map("small")

    def land_to_sea(d: dict[str, Any], t: int, u: int) -> None:
        del d["grid"]
        for x in d["territories"]:
            del x["capital"], x["cells"]
        set_land(d, t, u, "land", False)
        set_land(d, t, u, "sea", True)

    for region in fmap.regions:  # find a land border whose loss splits the region's land graph
        for t in region.territories:
            for u in fmap.territories[t].land:
                if t < u and fmap.territories[u].region == region.id:
                    data = broken(small_data, lambda d, t=t, u=u: land_to_sea(d, t, u))
                    try:
                        parse_map(json.dumps(data))
                    except MapError as error:
                        assert (error.rule, error.field) == ("M-6", f"regions[{region.id}].territories")
                        assert "connected by land" in str(error)
                        data["generator"] = "hand-made"
                        assert u in parse_map(json.dumps(data)).territories[t].sea  # M-6 proper: sea counts
                        return
    pytest.fail("no land border of the small map splits its region")  # the map has some: 4-territory region 3


def test_m7_bonus_is_an_integer_at_least_zero() -> None:
    refused(broken(tiny(), lambda d: d["regions"][0].update(bonus=-1)), "M-7", "regions[0].bonus", "got -1")
    refused(broken(tiny(), lambda d: d["regions"][0].update(bonus=1.5)), "M-7", "regions[0].bonus", "got 1.5")


def test_m7_generated_maps_use_ceil_half(small_data: dict[str, Any]) -> None:
    refused(broken(small_data, lambda d: d["regions"][0].update(bonus=4)), "M-7", "regions[0].bonus", "ceil(n/2)")


def test_m8_unbalanced_symbols_are_refused() -> None:
    data = broken(tiny(), lambda d: d["territories"][2].update(card="galleon"))
    refused(data, "M-8", "territories[].card", "'galleon': 3")


def test_m8_symbol_is_one_of_three() -> None:
    data = broken(tiny(), lambda d: d["territories"][2].update(card="wildcard"))
    refused(data, "M-8", "territories[2].card", "'wildcard'", ", ".join(SYMBOLS))


def test_m8_generated_maps_use_symbol_of_id_mod_3(small_data: dict[str, Any]) -> None:
    def swap(d: dict[str, Any]) -> None:
        d["territories"][0]["card"], d["territories"][1]["card"] = "cannon", "galleon"

    refused(broken(small_data, swap), "M-8", "territories[0].card", "SYMBOLS[id mod 3]")


def test_m9_wrong_win_threshold_is_refused(small_data: dict[str, Any]) -> None:
    refused(broken(small_data, lambda d: d.update(win_threshold=24)), "M-9", "win_threshold", "got 24", "allowed: 25")


def test_m9_counts_agree_with_the_lists() -> None:
    refused(broken(tiny(), lambda d: d.update(territory_count=5)), "M-9", "territory_count", "allowed: 4")
    refused(broken(tiny(), lambda d: d.update(region_count=True)), "M-9", "region_count", "got True")


def test_m9_wrong_size_label_is_refused() -> None:
    refused(broken(tiny(), lambda d: d.update(size="small")), "M-9", "size", "'small'", "(4, 2)", "custom")


def test_m10_sea_links_list_the_sea_pairs_ascending(small_data: dict[str, Any]) -> None:
    refused(broken(small_data, lambda d: d["sea_links"].pop(2)), "M-10", "sea_links[2]", "[8, 23]", "[1, 9]")
    refused(broken(small_data, lambda d: d["sea_links"].reverse()), "M-10", "sea_links[0]", "[15, 31]")


def test_m11_cells_are_disjoint(small_data: dict[str, Any]) -> None:
    cell = small_data["territories"][1]["cells"][0]
    data = broken(small_data, lambda d: d["territories"][2]["cells"].append(cell))
    refused(data, "M-11", "territories[2].cells", f"cell {cell} is also a cell of territory 1")


def test_m11_cells_lie_in_the_grid_interior(small_data: dict[str, Any]) -> None:
    data = broken(small_data, lambda d: d["territories"][0]["cells"].append([15, 0]))
    refused(data, "M-11", "territories[0].cells", "[15, 0]", "<= 14")


def test_m11_territory_cells_are_connected(small_data: dict[str, Any]) -> None:
    owned = {tuple(c) for t in small_data["territories"] for c in t["cells"]}
    near = {(q + dq, r + dr) for q, r in owned for dq in (-1, 0, 1) for dr in (-1, 0, 1)}
    far = next((q, r) for r in range(-13, 14) for q in range(-13, 14) if abs(q + r) <= 13 and (q, r) not in near)
    data = broken(small_data, lambda d: d["territories"][0]["cells"].append(list(far)))
    refused(data, "M-11", "territories[0].cells", "is not connected")


def test_m11_capital_is_one_of_its_cells(small_data: dict[str, Any]) -> None:
    capital = small_data["territories"][1]["capital"]
    data = broken(small_data, lambda d: d["territories"][0].update(capital=capital))
    refused(data, "M-11", "territories[0].capital", str(capital))


def test_m11_land_lists_equal_the_cells_shared_edges(small_data: dict[str, Any]) -> None:
    data = broken(small_data, lambda d: set_land(d, 0, 3, "land", False))
    refused(data, "M-11", "territories[0].land", "got [2, 4]", "[2, 3, 4]")


def test_m11_geometry_needs_a_grid(small_data: dict[str, Any]) -> None:
    refused(broken(small_data, lambda d: d.pop("grid")), "M-11", "territories[0].cells", "without a grid")


# --------------------------------------------------------------------------------------------- the format
@pytest.mark.parametrize(
    ("change", "field", "quoted"),
    [
        (lambda d: d.update(colour="red"), "colour", "allowed keys: format, generator"),
        (lambda d: d["territories"][1].update(armies=3), "territories[1].armies", "allowed keys: id, name"),
        (lambda d: d.pop("sea_links"), "sea_links", "missing"),
        (lambda d: d.update(format="frontera-map/2"), "format", "'frontera-map/2'"),
        (lambda d: d.update(size="huge"), "size", "'huge'"),
        (lambda d: d.update(world_code="chico 1"), "world_code", "'chico 1'"),
        (lambda d: d.update(attempt=64), "attempt", "0..63"),
        (lambda d: d.update(generator=""), "generator", "''"),
        (lambda d: d.update(grid={"layout": "square", "radius": 15}), "grid.layout", "'square'"),
        (lambda d: d.update(grid={"layout": "axial-pointy", "radius": "15"}), "grid.radius", "'15'"),
    ],
)
def test_format_refuses_unknown_missing_and_mistyped_fields(
    small_data: dict[str, Any], change: Callable[[dict[str, Any]], None], field: str, quoted: str
) -> None:
    refused(broken(small_data, change), "frontera-map/1", field, quoted)


def test_format_refuses_texts_too_big_too_deep_or_not_json() -> None:
    with pytest.raises(MapError, match=f"at most {MAX_MAP_BYTES:,}"):
        parse_map(" " * (MAX_MAP_BYTES + 1))
    with pytest.raises(MapError, match="nested too deeply"):
        parse_map("[" * 20 + "]" * 20)
    with pytest.raises(MapError, match="not valid JSON"):
        parse_map("{'format': 1}")
    with pytest.raises(MapError, match=r"frontera-map/1: map: got \[\]"):
        parse_map("[]")


# ---------------------------------------------------------------------------------------------
def test_r2_1_a_game_needs_two_territories_per_player() -> None:
    fmap = parse_map(json.dumps(tiny()))
    check_players(fmap, 2)
    with pytest.raises(MapError, match=r"R-2\.1: players: got 3 for a map of 4 territories; allowed: at most 2"):
        check_players(fmap, 3)
    for players in (1, 7, True, "2"):
        with pytest.raises(MapError, match=r"R-1\.1: players: got .*; allowed: an integer 2\.\.6"):
            check_players(reference_map("small"), players)  # type: ignore[arg-type]
    check_players(reference_map("small"), 6)


def test_docs_frontera_md_maps_example_runs() -> None:
    """docs/FRONTERA.md's Maps example runs as written (its asserts are part of it)."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "FRONTERA.md").read_text(encoding="utf-8")
    maps = doc[doc.index("## Maps") :]
    block = maps[maps.index("```python\n") + 10 : maps.index("```\n", maps.index("```python\n") + 10)]
    printed: list[str] = []
    exec(compile(block, "FRONTERA.md", "exec"), {"print": printed.append})  # noqa: S102 - our own page
    assert printed[0].startswith("Frontera small map CHICO-1") and "seat 3" in printed[0]


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Return the paths of every value inside a JSON value (containers included)."""
    paths = [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        paths += _leaves(item, (*path, key))
    return paths


def test_any_one_value_replaced_by_junk_is_a_map_error_or_a_valid_map(small_data: dict[str, Any]) -> None:
    """Bad input of every kind: 300 seeded single-value replacements never escape as another exception."""
    import random

    rng = random.Random(47)
    junk = [None, -1, 0, 10**30, "x", "", [], {}, 1.5, True, [[0, 0]], {"id": 0}]
    refusals = 0
    for data in (tiny(), small_data):
        paths = _leaves(data)[1:]
        for _ in range(150):
            path = rng.choice(paths)
            mutated = copy.deepcopy(data)
            holder = mutated
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = rng.choice(junk)
            try:
                parse_map(json.dumps(mutated))
            except MapError as error:
                refusals += 1
                assert error.rule and str(error).startswith(error.rule)
    assert refusals > 250  # almost every replacement breaks some rule
