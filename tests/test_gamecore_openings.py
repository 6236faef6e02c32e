"""The arena's opening-plies check for a game without random openings (issue 47 item 1: Frontera's message)."""

from __future__ import annotations

import pytest

from policies import games
from training.evaluation.arena_config import check_opening_plies


def test_frontera_opening_plies_message_says_it_has_no_openings_and_allows_only_0() -> None:
    frontera = games.get("frontera")
    options = frontera.default_options()
    with pytest.raises(ValueError) as caught:
        check_opening_plies(2, options, frontera)
    message = str(caught.value)
    assert "--opening-plies 2 is not allowed" in message
    assert "Frontera has no random openings" in message and "dice" in message
    assert message.endswith("allowed: 0") and "0..0" not in message
    check_opening_plies(0, options, frontera)  # the one value allowed


def test_a_game_with_openings_keeps_its_range_message() -> None:
    conquer = games.get("conquer")
    with pytest.raises(ValueError, match=r"--opening-plies must be 0\.\.30, got 31"):
        check_opening_plies(31, conquer.default_options(), conquer)
