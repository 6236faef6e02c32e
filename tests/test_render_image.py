"""The image renderer and the env's render modes."""

from __future__ import annotations

import numpy as np
import pytest

from dw_env import domain_wheel_v0
from dw_env.engine import Game
from dw_env.info import PLAYER_COLOURS
from dw_env.render_image import render_image
from dw_env.rules import layout as lay

SMALL = {"land_radius": 1, "map_radius": 2}


def _has_colour(image: np.ndarray, colour: tuple[int, int, int], tolerance: int = 12) -> bool:
    return bool((np.abs(image.astype(int) - colour).max(axis=2) <= tolerance).any())


@pytest.mark.parametrize("width", [300, 800])
def test_image_is_rgb_of_the_requested_width(width: int) -> None:
    image = render_image(Game.new(**SMALL), width=width)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[1] == width and image.shape[2] == 3
    assert 0.8 * width < image.shape[0] < 1.6 * width
    for colour in PLAYER_COLOURS:  # every player's pieces and score box are drawn in its colour
        assert _has_colour(image, colour)


def test_image_changes_with_the_position_and_the_highlight() -> None:
    game = Game.new(**SMALL)
    before = render_image(game, width=400)
    king, knights = game.pieces(0)
    dst = next(iter(game.destinations(knights[0])))
    highlighted = render_image(game, width=400, selected=knights[0], destinations=game.destinations(knights[0]))
    assert not np.array_equal(before, highlighted)
    game.play((knights[0], dst))
    assert not np.array_equal(before, render_image(game, width=400))


def test_land_owner_colours_the_land() -> None:
    game = Game.new(**SMALL)
    plain = render_image(game, width=400)
    game.lands[lay.OWNER, game.geometry.centre_land] = 2  # Red owns the centre land
    owned = render_image(game, width=400)
    changed = np.abs(owned.astype(int) - plain.astype(int)).max(axis=2) > 30
    red_tint = owned[changed].astype(int)
    assert changed.sum() > 500 and (red_tint[:, 0] > red_tint[:, 2]).mean() > 0.8


def test_bad_width_is_refused() -> None:
    with pytest.raises(ValueError, match="width"):
        render_image(Game.new(**SMALL), width=50)


def test_env_render_modes() -> None:
    env = domain_wheel_v0.raw_env(render_mode="rgb_array", render_width=500, **SMALL)
    env.reset()
    image = env.render()
    assert isinstance(image, np.ndarray) and image.shape[1] == 500
    text_env = domain_wheel_v0.raw_env(render_mode="ansi", **SMALL)
    text_env.reset()
    piece = int(np.flatnonzero(text_env.observe("player_0")["action_mask"])[0])
    text_env.step(piece)
    text = text_env.render()
    assert isinstance(text, str) and "To act: blue" in text and "phase 2" in text and "*" in text
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert domain_wheel_v0.raw_env(**SMALL).render() is None


def test_human_mode_prints_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    env = domain_wheel_v0.raw_env(render_mode="human", **SMALL)
    env.reset()
    env.step(env.geometry.num_cells)  # pass; human mode renders after every step
    assert "To act: green" in capsys.readouterr().out
