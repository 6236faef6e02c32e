"""Frontera map rendering: the text view (regions, owners, armies, neighbours) and the image (spec 2.2)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from frontera_env.board import FronteraMap
from frontera_env.map_file import parse_map, reference_map, reference_text
from frontera_env.render_image import BONE, BORDER, LINK, REGION_TINTS, SEAT_COLOURS, render_image
from frontera_env.render_text import NO_OWNER, render_text

WIDTH = 360


@pytest.fixture(scope="module")
def small() -> FronteraMap:
    return reference_map("small")


def colours(image: np.ndarray) -> set[tuple[int, int, int]]:
    return {tuple(int(v) for v in c) for c in np.unique(image.reshape(-1, 3), axis=0)}


def test_text_lists_every_territory_once_under_its_region_with_its_neighbours(small: FronteraMap) -> None:
    lines = render_text(small).splitlines()
    assert lines[0].startswith("Frontera small map CHICO-1 (frontera-gen/1, attempt 1): 35 territories")
    assert lines[0].endswith("6 regions, 25 to win")
    assert lines[1] == "region 0 Baja Almsoles, bonus 3"
    braela = lines[2].split()
    assert braela[:3] == ["0", "Braela", "G"] and " ".join(braela[3:]) == "land 2 3 4 | sea 31"
    named = [line.split()[1] for line in lines if line.startswith(" ")]
    assert named == [t.name for t in small.territories]


def test_text_shows_owners_armies_held_regions_and_a_seat_summary(small: FronteraMap) -> None:
    owner = [2] * 35
    owner[5], owner[6] = 0, NO_OWNER  # region 1 is split, region 0 is held by seat 2
    armies = list(range(1, 36))
    lines = render_text(small, owner, armies).splitlines()
    assert lines[1] == "region 0 Baja Almsoles, bonus 3, held by seat 2"
    assert lines[7] == "region 1 Tierras de Gormora, bonus 3"
    assert lines[8].split()[3:6] == ["seat", "0", "6"]
    assert lines[9].split()[3:5] == ["-", "7"]
    assert (
        lines[-1]
        == "seat 0: 1 territories, 6 armies; seat 2: 33 territories, 617 armies; ownerless: 1 territories, 7 armies"
    )


@pytest.mark.parametrize(
    ("owner", "armies", "message"),
    [
        ([0] * 34, [1] * 35, r"owner must be 35 integers"),
        ([0] * 35, [1.0] * 35, r"armies must be 35 integers"),
        ([0] * 34 + [6], [1] * 35, r"owner\[34\] is 6; allowed: -1\.\.5"),
        ([0] * 35, [1] * 10 + [0] + [1] * 24, r"armies\[10\] is 0; allowed: at least 1"),
        ([0] * 35, None, r"give owner and armies together"),
    ],
)
def test_text_and_image_refuse_bad_positions_naming_the_field(
    small: FronteraMap, owner: list[int], armies: list[int] | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        render_text(small, owner, armies)
    with pytest.raises(ValueError, match=message):
        render_image(small, owner, armies, width=WIDTH)


def test_image_without_position_tints_regions_and_outlines_them(small: FronteraMap) -> None:
    image = render_image(small, width=WIDTH)
    assert image.shape == (WIDTH, WIDTH, 3) and image.dtype == np.uint8
    found = colours(image)
    assert set(REGION_TINTS[:6]) <= found and BORDER in found and REGION_TINTS[6] not in found


def test_image_colours_territories_by_owner_and_ownerless_in_bone(small: FronteraMap) -> None:
    owner = [0] * 35
    owner[7] = 3
    found = colours(render_image(small, owner, [1] * 35, width=WIDTH))
    assert SEAT_COLOURS[0] in found and SEAT_COLOURS[3] in found
    assert SEAT_COLOURS[1] not in found and BONE not in found
    owner[7] = NO_OWNER
    found = colours(render_image(small, owner, [1] * 35, width=WIDTH))
    assert BONE in found and SEAT_COLOURS[3] not in found


def test_image_draws_sea_links_dotted_and_army_counts(small: FronteraMap) -> None:
    owner, armies = [0] * 35, [1] * 35
    with_links = render_image(small, owner, armies, width=WIDTH)
    no_links = render_image(dataclasses.replace(small, sea_links=()), owner, armies, width=WIDTH)
    assert LINK in colours(with_links) and LINK not in colours(no_links)
    assert not np.array_equal(with_links, render_image(small, owner, [88] * 35, width=WIDTH))


def test_image_needs_geometry_and_a_sane_width(small: FronteraMap) -> None:
    data = json.loads(reference_text("small"))
    del data["grid"]
    for t in data["territories"]:
        del t["capital"], t["cells"]
    with pytest.raises(ValueError, match="no geometry"):
        render_image(parse_map(json.dumps(data)))
    for width in (50, 5000, 300.0, True):
        with pytest.raises(ValueError, match=r"width must be an integer in 120\.\.4000"):
            render_image(small, width=width)  # type: ignore[arg-type]


def test_image_outlines_region_borders_thick_and_leaves_a_territorys_inside_filled(small: FronteraMap) -> None:
    """Between two cells of different regions (a land bridge, G-6) lies a border line; inside a territory, fill."""
    image = render_image(small, width=WIDTH)
    size = WIDTH / (3**0.5 * (2 * 15 + 1))

    def pixel_between(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, ...]:
        q, r = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        x, y = WIDTH / 2 + size * 3**0.5 * (q + r / 2), WIDTH / 2 + size * 1.5 * r
        return tuple(int(v) for v in image[round(y), round(x)])

    region = {c: t.region for t in small.territories for c in t.cells}
    steps = ((1, 0), (0, 1), (-1, 1))
    border = next(
        (c, n)
        for c in region
        for n in [(c[0] + dq, c[1] + dr) for dq, dr in steps]
        if region.get(n, -1) not in (-1, region[c])
    )
    assert pixel_between(*border) == BORDER
    inside = next(t for t in small.territories if len(t.cells) > 12)
    cells = set(inside.cells)
    pair = next((c, (c[0] + 1, c[1])) for c in inside.cells if (c[0] + 1, c[1]) in cells)
    assert pixel_between(*pair) == REGION_TINTS[inside.region]
