"""Map files ``frontera-map/1`` (spec 2.2): read one strictly, check it (M-1..M-11), write its canonical text.

Reading is bounded: a file or text of at most :data:`MAX_MAP_BYTES` bytes, nested at most :data:`MAX_DEPTH`
levels (a map needs 5), read by the shared loaders. Every field is checked for its type and every key that
the format does not name is refused, so a typo never passes silently. Each refusal is a :class:`MapError`
whose message names the rule (M-x, or ``frontera-map/1`` for the format itself), the field path and the
value received. :func:`check_map` checks a built map (M-1..M-11), so a generated map is checked by the same
code as a file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from frontera_env.board import SIZES, SYMBOLS, FronteraMap, Region, Territory, win_threshold
from frontera_env.errors import MapError, brief
from frontera_env.generator import CODE_PATTERN, CONSTANTS, GENERATOR, D, hex_distance

#: the largest map file or text read, in bytes: 48 times the large reference map (21,632 bytes)
MAX_MAP_BYTES = 1 << 20
#: the deepest nesting accepted: a map needs 5 (map, territories, territory, cells, cell)
MAX_DEPTH = 8
FORMAT_NAME = "frontera-map/1"
#: the rule named by errors of the format itself (unknown keys, types of header fields)
FORMAT = FORMAT_NAME
#: the region sizes of generated maps (M-3's stronger form)
TEMPLATES = {size: c.template for size, c in CONSTANTS.items()}
LAYOUT = "axial-pointy"
#: the grid radii accepted with geometry (the generator uses 15, 19 and 23)
MAX_RADIUS = 100
MAX_NAME = 64

HEADER_KEYS = ("format", "generator", "size", "world_code", "attempt", "territory_count", "region_count")
TOP_KEYS = (*HEADER_KEYS, "win_threshold", "grid", "regions", "territories", "sea_links")
REGION_KEYS = ("id", "name", "bonus", "territories")
TERRITORY_KEYS = ("id", "name", "region", "land", "sea", "card", "capital", "cells")
SIZE_LABELS = ("small", "medium", "large", "custom")


def read_map(path: str | Path) -> FronteraMap:
    """Return the checked map of a ``frontera-map/1`` file; MapError naming the rule and field otherwise."""
    from gamecore.loaders import load_json

    data = load_json(path, MAX_MAP_BYTES, MapError, max_depth=MAX_DEPTH)
    try:
        return map_from_data(data)
    except MapError as exc:
        raise MapError(f"{path}: {exc}", rule=exc.rule, field=exc.field) from None


def parse_map(text: str | bytes) -> FronteraMap:
    """Return the checked map of a ``frontera-map/1`` text; MapError naming the rule and field otherwise."""
    from gamecore.loaders import parse_json

    return map_from_data(parse_json(text, MAX_MAP_BYTES, MapError, max_depth=MAX_DEPTH))


@lru_cache(maxsize=4)
def reference_map(size: str) -> FronteraMap:
    """Return the shipped reference map of ``size`` (spec 2.4), read and checked once per process."""
    if size not in ("small", "medium", "large"):
        raise ValueError(f"reference map size {brief(size)} is not known; allowed: small, medium, large")
    return parse_map(reference_text(size))


def reference_text(size: str) -> str:
    """Return the shipped reference map file of ``size`` as text, byte for byte as the spec gives it."""
    return (resources.files("frontera_env") / "maps" / f"{size}.json").read_bytes().decode("utf-8")


# ------------------------------------------------------------------------------------------------ reading
def map_from_data(data: Any) -> FronteraMap:
    """Return the checked map of a decoded ``frontera-map/1`` value (M-1..M-11 and the header)."""
    obj = _object(data, "map", FORMAT, TOP_KEYS, optional=("grid",))
    if obj["format"] != FORMAT_NAME:
        raise MapError.at(FORMAT, "format", f"got {brief(obj['format'])}; allowed: {FORMAT_NAME!r}")
    generator = _string(obj["generator"], "generator", FORMAT, 1)
    size = obj["size"]
    if size not in SIZE_LABELS:
        raise MapError.at(FORMAT, "size", f"got {brief(size)}; allowed: {', '.join(SIZE_LABELS)}")
    world_code = _world_code(obj["world_code"])
    attempt = _int(obj["attempt"], "attempt", FORMAT, 0, 63)
    radius = _grid(obj["grid"]) if "grid" in obj else None
    regions = _list(obj["regions"], "regions", "M-3")
    territories = _list(obj["territories"], "territories", "M-3")
    fmap = FronteraMap(
        size=size,
        generator=generator,
        world_code=world_code,
        attempt=attempt,
        regions=tuple(_region(r, f"regions[{i}]") for i, r in enumerate(regions)),
        territories=tuple(_territory(t, f"territories[{i}]", radius is not None) for i, t in enumerate(territories)),
        grid_radius=radius,
        sea_links=_sea_links(obj["sea_links"]),
    )
    check_map(fmap)
    _check_header(obj, fmap)
    return fmap


def _check_header(obj: dict[str, Any], fmap: FronteraMap) -> None:
    """Check the header's counts against the lists (M-9)."""
    n, k = len(fmap.territories), len(fmap.regions)
    for key, actual in (("territory_count", n), ("region_count", k), ("win_threshold", win_threshold(n))):
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, int) or value != actual:
            rule_text = "W(N) = ceil(7N/10)" if key == "win_threshold" else "the length of the list"
            raise MapError.at("M-9", key, f"got {brief(value)}; allowed: {actual} ({rule_text}, N = {n})")


def _object(value: Any, where: str, rule: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> Any:
    """Return ``value`` if it is an object with exactly ``keys`` (less any ``optional``); MapError otherwise."""
    if not isinstance(value, dict):
        raise MapError.at(rule, where, f"got {brief(value)}; allowed: an object with keys {', '.join(keys)}")
    unknown = [key for key in value if key not in keys]
    if unknown:
        key = unknown[0]
        field = _key_path(
            where, key if isinstance(key, str) and key.isidentifier() and len(key) <= 40 else brief(key, 40)
        )
        raise MapError.at(FORMAT, field, f"unknown key; allowed keys: {', '.join(keys)}")
    missing = [key for key in keys if key not in value and key not in optional]
    if missing:
        raise MapError.at(FORMAT, _key_path(where, missing[0]), "missing; every map gives it")
    return value


def _key_path(where: str, key: str) -> str:
    """Return the field path of ``key`` inside ``where`` (the top-level object's keys stand alone)."""
    return key if where == "map" else f"{where}.{key}"


def _int(value: Any, field: str, rule: str, lo: int, hi: int | None = None) -> int:
    """Return ``value`` if it is an integer in ``lo..hi``; MapError naming ``field`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        allowed = f"an integer {lo}..{hi}" if hi is not None else f"an integer >= {lo}"
        raise MapError.at(rule, field, f"got {brief(value)}; allowed: {allowed}")
    return value


def _string(value: Any, field: str, rule: str, shortest: int) -> str:
    """Return ``value`` if it is a string of ``shortest``..64 characters; MapError naming ``field`` otherwise."""
    if not isinstance(value, str) or not shortest <= len(value) <= MAX_NAME or (shortest and not value.strip()):
        what = "a non-empty string" if shortest else "a string"
        raise MapError.at(rule, field, f"got {brief(value)}; allowed: {what} of at most {MAX_NAME} characters")
    return value


def _list(value: Any, field: str, rule: str) -> list[Any]:
    """Return ``value`` if it is a list; MapError naming ``field`` otherwise."""
    if not isinstance(value, list):
        raise MapError.at(rule, field, f"got {brief(value)}; allowed: a list")
    return value


def _ids(value: Any, field: str, rule: str) -> tuple[int, ...]:
    """Return a list of territory ids (range is checked with the whole map); MapError naming ``field``."""
    return tuple(_int(x, f"{field}[{i}]", rule, 0) for i, x in enumerate(_list(value, field, rule)))


def _world_code(value: Any) -> str:
    """Return the header's world code: empty (hand-made) or already normalised (G-1)."""
    if not isinstance(value, str) or (value and not CODE_PATTERN.fullmatch(value)):
        raise MapError.at(
            FORMAT, "world_code", f"got {brief(value)}; allowed: '' or a normalised code, 1-32 of A-Z, 0-9 and '-'"
        )
    return value


def _grid(value: Any) -> int:
    """Return the grid radius of the optional ``grid`` object (geometry, spec 2.2)."""
    grid = _object(value, "grid", FORMAT, ("layout", "radius"))
    if grid["layout"] != LAYOUT:
        raise MapError.at(FORMAT, "grid.layout", f"got {brief(grid['layout'])}; allowed: {LAYOUT!r}")
    return _int(grid["radius"], "grid.radius", FORMAT, 2, MAX_RADIUS)


def _cell(value: Any, field: str) -> tuple[int, int]:
    """Return an axial cell ``[q, r]`` as a tuple; MapError naming ``field`` otherwise."""
    if not (isinstance(value, list) and len(value) == 2 and all(type(x) is int for x in value)):
        raise MapError.at("M-11", field, f"got {brief(value)}; allowed: an axial cell [q, r] of two integers")
    return value[0], value[1]


def _region(value: Any, where: str) -> Region:
    """Return one region read from its object at ``where`` (types only; M-x come later)."""
    obj = _object(value, where, "M-3", REGION_KEYS)
    return Region(
        id=_int(obj["id"], f"{where}.id", "M-1", 0),
        name=_string(obj["name"], f"{where}.name", "M-2", 1),
        bonus=_int(obj["bonus"], f"{where}.bonus", "M-7", 0),
        territories=_ids(obj["territories"], f"{where}.territories", "M-3"),
    )


def _territory(value: Any, where: str, geometry: bool) -> Territory:
    """Return one territory read from its object at ``where``, its cells in canonical order."""
    optional = () if geometry else ("capital", "cells")
    obj = _object(value, where, "M-3", TERRITORY_KEYS, optional=optional)
    if not geometry and ("capital" in obj or "cells" in obj):
        raise MapError.at("M-11", f"{where}.cells", "geometry without a grid; allowed: a grid with every territory's")
    capital = _cell(obj["capital"], f"{where}.capital") if geometry else None
    cells = tuple(
        _cell(c, f"{where}.cells[{i}]") for i, c in enumerate(_list(obj.get("cells", []), f"{where}.cells", "M-11"))
    )
    return Territory(
        id=_int(obj["id"], f"{where}.id", "M-1", 0),
        name=_string(obj["name"], f"{where}.name", "M-2", 1),
        region=_int(obj["region"], f"{where}.region", "M-3", 0),
        land=_ids(obj["land"], f"{where}.land", "M-4"),
        sea=_ids(obj["sea"], f"{where}.sea", "M-4"),
        card=_string(obj["card"], f"{where}.card", "M-8", 0),
        capital=capital,
        cells=tuple(sorted(cells, key=lambda c: (c[1], c[0]))),
    )


def _sea_links(value: Any) -> tuple[tuple[int, int], ...]:
    """Return the ``sea_links`` pairs (their agreement with the sea lists is M-10's)."""
    links = []
    for i, pair in enumerate(_list(value, "sea_links", "M-10")):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise MapError.at("M-10", f"sea_links[{i}]", f"got {brief(pair)}; allowed: a pair [t, u] with t < u")
        links.append((_int(pair[0], f"sea_links[{i}][0]", "M-10", 0), _int(pair[1], f"sea_links[{i}][1]", "M-10", 0)))
    return tuple(links)


# ------------------------------------------------------------------------------------------------ writing
def _dump(value: Any) -> str:
    """Return one JSON value with the canonical separators, non-ASCII written as UTF-8."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def map_data(fmap: FronteraMap) -> dict[str, Any]:
    """Return the map as the ``frontera-map/1`` value, keys in the canonical order (spec 2.2)."""
    data: dict[str, Any] = {
        "format": FORMAT_NAME,
        "generator": fmap.generator,
        "size": fmap.size,
        "world_code": fmap.world_code,
        "attempt": fmap.attempt,
        "territory_count": fmap.territory_count,
        "region_count": fmap.region_count,
        "win_threshold": fmap.win_threshold,
    }
    if fmap.grid_radius is not None:
        data["grid"] = {"layout": LAYOUT, "radius": fmap.grid_radius}
    data["regions"] = [
        {"id": r.id, "name": r.name, "bonus": r.bonus, "territories": list(r.territories)} for r in fmap.regions
    ]
    data["territories"] = [_territory_data(t, fmap.grid_radius is not None) for t in fmap.territories]
    data["sea_links"] = [list(pair) for pair in fmap.sea_links]
    return data


def _territory_data(t: Territory, geometry: bool) -> dict[str, Any]:
    """Return one territory as its ``frontera-map/1`` object, geometry only with a grid."""
    data: dict[str, Any] = {
        "id": t.id,
        "name": t.name,
        "region": t.region,
        "land": list(t.land),
        "sea": list(t.sea),
        "card": t.card,
    }
    if geometry:
        data["capital"] = list(t.capital) if t.capital is not None else None
        data["cells"] = [list(c) for c in t.cells]
    return data


def canonical_text(fmap: FronteraMap) -> str:
    """Return the map's canonical text (spec 2.2): header lines, one line per region, territory and sea_links."""
    data = map_data(fmap)
    lines = ["{"]
    lines += [f"  {_dump(key)}: {_dump(value)}," for key, value in data.items() if not isinstance(value, list)]
    for key in ("regions", "territories"):
        rows = ",\n".join(f"    {_dump(item)}" for item in data[key])
        lines.append(f"  {_dump(key)}: [\n{rows}\n  ]," if rows else f"  {_dump(key)}: [],")
    lines.append(f'  "sea_links": {_dump(data["sea_links"])}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_map(fmap: FronteraMap, path: str | Path) -> None:
    """Write the map's canonical text to ``path`` as UTF-8."""
    Path(path).write_bytes(canonical_text(fmap).encode("utf-8"))


# ------------------------------------------------------------------------------------------------ checking
def check_map(fmap: FronteraMap) -> None:
    """Check M-1..M-11 (M-11 only with geometry) and the generated maps' stronger forms; MapError on the first."""
    _check_ids(fmap)
    _check_names(fmap)
    _check_regions(fmap)
    _check_neighbours(fmap)
    _check_connected(fmap)
    _check_bonuses(fmap)
    _check_cards(fmap)
    check_size_label(fmap)
    _check_sea_links(fmap)
    if fmap.grid_radius is not None:
        _check_geometry(fmap)


def check_players(fmap: FronteraMap, players: int) -> None:
    """Check that a game of ``players`` players may use ``fmap``: 2..6 players and N >= 2P (R-1.1, R-2.1)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        raise MapError.at("R-1.1", "players", f"got {brief(players)}; allowed: an integer 2..6")
    n = len(fmap.territories)
    if n < 2 * players:
        raise MapError.at(
            "R-2.1", "players", f"got {players} for a map of {n} territories; allowed: at most {n // 2} (N >= 2P)"
        )


def _generated(fmap: FronteraMap) -> bool:
    """Return whether the map says it came from ``frontera-gen/1`` (the stronger forms apply)."""
    return fmap.generator == GENERATOR


def _groups(fmap: FronteraMap, first: str) -> list[tuple[str, Sequence[Region | Territory]]]:
    """Return [(kind, items)] for regions and territories, ``first`` first."""
    groups: list[tuple[str, Sequence[Region | Territory]]] = [
        ("regions", fmap.regions),
        ("territories", fmap.territories),
    ]
    return groups if first == "regions" else groups[::-1]


def _check_ids(fmap: FronteraMap) -> None:
    """M-1: ids 0..N-1 and 0..K-1, dense and in id order."""
    for kind, items in _groups(fmap, "regions"):
        for i, item in enumerate(items):
            if item.id != i:
                raise MapError.at("M-1", f"{kind}[{i}].id", f"got {brief(item.id)}; allowed: {i} (ids dense, in order)")


def _check_names(fmap: FronteraMap) -> None:
    """M-2: non-empty names, all distinct across territories and regions."""
    seen: dict[str, str] = {}
    for kind, items in _groups(fmap, "territories"):
        for i, item in enumerate(items):
            field = f"{kind}[{i}].name"
            if not isinstance(item.name, str) or not item.name.strip():
                raise MapError.at("M-2", field, f"got {brief(item.name)}; allowed: a non-empty name")
            if item.name in seen:
                raise MapError.at(
                    "M-2",
                    field,
                    f"got {brief(item.name)}, already the name of {seen[item.name]}; "
                    "allowed: a name no other territory or region has",
                )
            seen[item.name] = field


def _check_regions(fmap: FronteraMap) -> None:
    """M-3: one region per territory, each region listing exactly its members ascending, at least 2 of them."""
    k = len(fmap.regions)
    if k == 0:
        raise MapError.at("M-3", "regions", "got []; allowed: at least one region")
    members: list[list[int]] = [[] for _ in range(k)]
    for t in fmap.territories:
        if not 0 <= t.region < k:
            raise MapError.at("M-3", f"territories[{t.id}].region", f"got {brief(t.region)}; allowed: 0..{k - 1}")
        members[t.region].append(t.id)
    for r in fmap.regions:
        field = f"regions[{r.id}].territories"
        if list(r.territories) != members[r.id]:
            raise MapError.at(
                "M-3",
                field,
                f"got {brief(list(r.territories))}; allowed: {brief(members[r.id])}, "
                "the territories that name this region, ascending",
            )
        if len(r.territories) < 2:
            raise MapError.at("M-3", field, f"got {len(r.territories)} territory; allowed: at least 2")
    if _generated(fmap) and fmap.size in TEMPLATES:
        got = sorted(len(r.territories) for r in fmap.regions)
        if got != sorted(TEMPLATES[fmap.size]):
            raise MapError.at(
                "M-3",
                "regions",
                f"region sizes {got}; allowed for a generated {fmap.size} map: "
                f"{sorted(TEMPLATES[fmap.size])} (the template of G-3)",
            )


def _check_neighbours(fmap: FronteraMap) -> None:
    """M-4: land and sea lists ascending, unique, in range, without self, symmetric and disjoint."""
    n = len(fmap.territories)
    for t in fmap.territories:
        for kind in ("land", "sea"):
            ids = getattr(t, kind)
            field = f"territories[{t.id}].{kind}"
            if any(not 0 <= u < n or u == t.id for u in ids):
                raise MapError.at("M-4", field, f"got {brief(list(ids))}; allowed: ids 0..{n - 1} other than {t.id}")
            if any(a >= b for a, b in zip(ids, ids[1:], strict=False)):
                raise MapError.at("M-4", field, f"got {brief(list(ids))}; allowed: ascending, no id twice")
            for u in ids:
                if t.id not in getattr(fmap.territories[u], kind):
                    raise MapError.at(
                        "M-4",
                        field,
                        f"lists {u}, but territories[{u}].{kind} does not list {t.id}; allowed: symmetric neighbours",
                    )
        both = sorted(set(t.land) & set(t.sea))
        if both:
            raise MapError.at(
                "M-4",
                f"territories[{t.id}].sea",
                f"{both[0]} is also in land; allowed: a pair is a land border or a sea link, not both",
            )


def _reach(start: int, members: set[int], edges: list[tuple[int, ...]]) -> set[int]:
    """Return the members reachable from ``start`` over ``edges`` without leaving ``members``."""
    seen, stack = {start}, [start]
    while stack:
        for u in edges[stack.pop()]:
            if u in members and u not in seen:
                seen.add(u)
                stack.append(u)
    return seen


def _check_connected(fmap: FronteraMap) -> None:
    """M-5: the land-and-sea graph is connected; M-6: so is each region inside itself (by land if generated)."""
    both = [t.neighbours for t in fmap.territories]
    everyone = set(range(len(both)))
    lost = everyone - _reach(0, everyone, both)
    if lost:
        u = min(lost)
        raise MapError.at(
            "M-5",
            f"territories[{u}]",
            f"{brief(fmap.territories[u].name)} cannot be reached from "
            "territory 0; allowed: a connected map (land borders and sea links)",
        )
    edges, how = ([t.land for t in fmap.territories], "by land") if _generated(fmap) else (both, "by land or sea")
    for r in fmap.regions:
        members = set(r.territories)
        lost = members - _reach(r.territories[0], members, edges)
        if lost:
            raise MapError.at(
                "M-6",
                f"regions[{r.id}].territories",
                f"territory {min(lost)} cannot be reached from "
                f"{r.territories[0]} inside region {brief(r.name)}; allowed: a region connected {how}",
            )


def _check_bonuses(fmap: FronteraMap) -> None:
    """M-7: bonuses are integers >= 0; generated maps use ceil(n/2)."""
    for r in fmap.regions:
        want = (len(r.territories) + 1) // 2
        if isinstance(r.bonus, bool) or not isinstance(r.bonus, int) or r.bonus < 0:
            raise MapError.at("M-7", f"regions[{r.id}].bonus", f"got {brief(r.bonus)}; allowed: an integer >= 0")
        if _generated(fmap) and r.bonus != want:
            raise MapError.at(
                "M-7",
                f"regions[{r.id}].bonus",
                f"got {r.bonus}; allowed for a generated map: {want} (ceil(n/2), n = {len(r.territories)})",
            )


def _check_cards(fmap: FronteraMap) -> None:
    """M-8: symbols galleon, cannon or balloon, their counts within 1; generated maps use SYMBOLS[id mod 3]."""
    for t in fmap.territories:
        field = f"territories[{t.id}].card"
        if t.card not in SYMBOLS:
            raise MapError.at("M-8", field, f"got {brief(t.card)}; allowed: {', '.join(SYMBOLS)}")
        if _generated(fmap) and t.card != SYMBOLS[t.id % 3]:
            raise MapError.at(
                "M-8", field, f"got {t.card!r}; allowed for a generated map: {SYMBOLS[t.id % 3]!r} (SYMBOLS[id mod 3])"
            )
    counts = {s: sum(t.card == s for t in fmap.territories) for s in SYMBOLS}
    if max(counts.values()) - min(counts.values()) > 1:
        raise MapError.at(
            "M-8", "territories[].card", f"symbol counts {counts}; allowed: counts within 1 of each other"
        )


def check_size_label(fmap: FronteraMap) -> None:
    """M-9: a size label small, medium or large needs its (N, K); any other map says custom."""
    if fmap.size == "custom":
        return
    want = SIZES.get(fmap.size)
    got = (len(fmap.territories), len(fmap.regions))
    if want is None or got != want:
        raise MapError.at(
            "M-9",
            "size",
            f"got {brief(fmap.size)} for (N, K) = {got}; allowed: small (35, 6), "
            "medium (55, 8), large (80, 9), or custom",
        )


def _check_sea_links(fmap: FronteraMap) -> None:
    """M-10: sea_links is the ascending list of pairs [t, u], t < u, u in sea[t]."""
    want = [(t.id, u) for t in fmap.territories for u in t.sea if t.id < u]
    if list(fmap.sea_links) != want:
        pairs = zip(fmap.sea_links, want, strict=False)
        wrong = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(want), len(fmap.sea_links)))
        got = list(fmap.sea_links[wrong]) if wrong < len(fmap.sea_links) else "the end of the list"
        expected = list(want[wrong]) if wrong < len(want) else "the end of the list"
        raise MapError.at(
            "M-10",
            f"sea_links[{wrong}]",
            f"got {brief(got)}; allowed: {expected} (the pairs of the sea lists, t < u, ascending)",
        )


def _check_geometry(fmap: FronteraMap) -> None:
    """M-11: cells disjoint and interior, each territory's connected around its capital, land = shared edges."""
    inner = (fmap.grid_radius or 0) - 1
    owner: dict[tuple[int, int], int] = {}
    for t in fmap.territories:
        field = f"territories[{t.id}].cells"
        if not t.cells:
            raise MapError.at("M-11", field, "got []; allowed: at least one cell")
        for c in t.cells:
            if hex_distance(c, (0, 0)) > inner:
                raise MapError.at(
                    "M-11",
                    field,
                    f"cell {list(c)} lies outside the interior; allowed: cells at hex "
                    f"distance <= {inner} (grid radius - 1) from [0, 0]",
                )
            if c in owner:
                raise MapError.at(
                    "M-11", field, f"cell {list(c)} is also a cell of territory {owner[c]}; allowed: disjoint cells"
                )
            owner[c] = t.id
        if t.capital not in t.cells:
            got = brief(list(t.capital or ()))
            raise MapError.at("M-11", f"territories[{t.id}].capital", f"got {got}; allowed: one of its cells")
    for t in fmap.territories:
        _check_territory_cells(t, owner)


def _check_territory_cells(t: Territory, owner: dict[tuple[int, int], int]) -> None:
    """M-11 for one territory: its cells are connected and its land list is the set of territories it touches."""
    mine = set(t.cells)
    touching: set[int] = set()
    seen, stack = {t.cells[0]}, [t.cells[0]]
    while stack:
        q, r = stack.pop()
        for dq, dr in D:
            n = (q + dq, r + dr)
            if n in mine and n not in seen:
                seen.add(n)
                stack.append(n)
    for q, r in t.cells:
        touching.update(owner[n] for dq, dr in D if (n := (q + dq, r + dr)) in owner and owner[n] != t.id)
    if seen != mine:
        lost = min(mine - seen, key=lambda c: (c[1], c[0]))
        raise MapError.at(
            "M-11",
            f"territories[{t.id}].cells",
            f"cell {list(lost)} is not connected to {list(t.cells[0])}; allowed: a connected territory",
        )
    if sorted(touching) != list(t.land):
        raise MapError.at(
            "M-11",
            f"territories[{t.id}].land",
            f"got {brief(list(t.land))}; allowed: "
            f"{brief(sorted(touching))}, the territories whose cells share an edge with its cells",
        )
