"""Rules 9.1-9.5 and 1.4-1.5: the end of the game (spec R-9, A44-A59; truncation A57).

Most positions put Blue's king on the centre throne (0,0) with Blue owning the 20-point chain
CENTRE_PATH from its start land to the ring-1 lands (1,0) and (1,-1) (rule 6.8).
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import (
    BLUE,
    CENTRE_PATH,
    FILLER,
    GREEN,
    RED,
    destinations,
    first_conquered,
    game,
    guard_cell,
    hold,
    king,
    knights,
    land_cells,
    lib,
    owner,
    passes,
    play,
    snapshot,
    throne,
)

from dw_env.engine import Game, IllegalActionError

Cell = tuple[int, int]
Land = tuple[int, int]
START_CELLS = sorted(land_cells((4, 0)) - {(20, -8)})
#: Green's lands far from Blue's: 4 ring-1 lands (24) and 4 ring-2 lands (12) = 36 points
GREEN_LANDS = [(0, 1), (-1, 1), (-1, 0), (0, -1), (-2, 2), (-2, 1), (-1, 2), (0, 2)]
RING1 = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]


def green_with(lands: list[Land], king_cell: Cell = (-12, 20), extra: tuple[Cell, ...] = ()) -> dict[str, Any]:
    """Return Green's pieces owning ``lands`` (a guard knight each), plus ``extra`` knights."""
    home = [(-11, 19), (-12, 19)][: 2 - len(extra)]
    return {"king": king_cell, "knights": [guard_cell(x) for x in lands] + list(extra) + home}


def blue_on_centre(
    *,
    lands: list[Land] = CENTRE_PATH,
    inside: tuple[Cell, ...] = ((2, -1), (1, 1)),
    guards_home: tuple[Land, ...] = (),
    centre_hold: int = 0,
    pieces: dict[str, Any] | None = None,
    owners: dict[str, list[Land]] | None = None,
    **kwargs: Any,
) -> Game:
    """Blue's king on the centre throne with ``inside`` knights there and a guard in each land."""
    guards = [guard_cell(x) for x in lands if x not in guards_home]
    spare = [c for c in START_CELLS if c not in guards][: 2 + len(lands) - len(inside) - len(guards)]
    all_pieces = {"blue": {"king": (0, 0), "knights": list(inside) + guards + spare}, **(pieces or {})}
    holds = kwargs.pop("holds", []) + ([("blue", (0, 0), centre_hold)] if centre_hold else [])
    return game(pieces=all_pieces, owners={"blue": lands, **(owners or {})}, holds=holds, **kwargs)


def over(g: Game) -> tuple[bool, str, list[int]]:
    return g.over, g.end_reason, g.winners


# ---- 9.1 the centre ends the game ---------------------------------------------------------------
def test_rule_9_1_completing_the_centre_ends_the_game_at_once() -> None:
    g = blue_on_centre(centre_hold=3)
    g.pass_turn()
    assert over(g) == (True, "centre", [BLUE])
    assert owner(g, (0, 0)) == "blue" and g.scores() == [33, 0, 0]
    assert g.legal_moves() == []  # nobody moves again
    with pytest.raises(IllegalActionError):
        g.pass_turn()


@pytest.mark.parametrize(
    "green_lands, winners",
    [(GREEN_LANDS[:4] + GREEN_LANDS[4:7], [BLUE, GREEN]), (GREEN_LANDS, [GREEN])],
    ids=["tie-33-all-win", "green-36-wins"],
)
def test_rule_1_5_and_9_5_the_top_score_wins_not_who_ended_the_game(
    green_lands: list[Land], winners: list[int]
) -> None:
    g = blue_on_centre(centre_hold=3, pieces={"green": green_with(green_lands)}, owners={"green": green_lands})
    g.pass_turn()
    assert g.end_reason == "centre"
    assert g.winners == winners


# ---- 9.2 the countdown ----------------------------------------------------------------------------
def test_rule_9_2_a_rival_breaking_the_held_centre_starts_the_countdown_at_the_end_of_its_turn_A46() -> None:
    g = blue_on_centre(centre_hold=2, turn="green", pieces={"green": green_with([], extra=((-3, 1),))})
    play(g, (-3, 1), (-2, 1))  # Green's knight enters the centre: Blue now needs 3
    assert g.countdown == (BLUE, 10)
    assert hold(g, BLUE, (0, 0)) == 2  # Blue's counter is only reviewed at Blue's end of turn
    passes(g, 1)  # Red
    assert g.turn == BLUE and destinations(g, (0, 0)) == {}  # the king is locked (4.12)


@pytest.mark.parametrize("options", [{"turns_to_conquer": 2}, {"turns_to_conquer": 8}], ids=["K2", "K8"])
def test_rule_9_2_the_countdown_is_10_turns_whatever_the_options_A61(options: dict[str, int]) -> None:
    g = blue_on_centre(centre_hold=1, turn="green", pieces={"green": green_with([], extra=((-3, 1),))}, **options)
    play(g, (-3, 1), (-2, 1))
    assert g.countdown == (BLUE, 10)


def test_rule_9_2_no_countdown_if_the_centre_count_never_started_A49() -> None:
    # 19 points: the king is parked on the centre throne without a position
    g = blue_on_centre(lands=CENTRE_PATH[:-1], turn="green", pieces={"green": green_with([], extra=((-3, 1),))})
    play(g, (-3, 1), (-2, 1))
    assert g.countdown is None


def test_rule_9_2_a_parked_king_keeps_rival_kings_out_of_the_centre_A49() -> None:
    g = blue_on_centre(lands=CENTRE_PATH[:-1], turn="green", pieces={"green": green_with([], king_cell=(-3, 1))})
    assert not {c for c in destinations(g, (-3, 1)) if c in land_cells((0, 0))}
    g.pass_turn()
    assert king(g, BLUE) == (0, 0) and g.countdown is None


def test_rule_9_2_breaking_your_own_centre_position_starts_no_countdown_A50() -> None:
    g = blue_on_centre(centre_hold=2)
    play(g, (2, -1), (3, -1))  # Blue's own knight leaves the centre
    assert hold(g, BLUE, (0, 0)) == 0
    passes(g, 2)
    assert g.countdown is None


def test_rule_9_2_cutting_the_path_starts_the_countdown_A44() -> None:
    # Red completes the liberation of (3,0), Blue's only link from its start land: no ring-1 land
    # is left in Blue's territory, so the held centre position fails at the end of Red's turn
    red_knights = sorted(land_cells((3, 0)) - {(15, -6)})[:9]  # Red's N for (3,0) is 6
    g = blue_on_centre(
        centre_hold=2,
        guards_home=((3, 0),),
        turn="red",
        pieces={"red": {"king": (-8, -12), "knights": red_knights}},
        first={"red": FILLER["red"][:7]},
        liberations=[("red", (3, 0), 1)],
    )
    g.pass_turn()
    assert owner(g, (3, 0)) is None
    assert g.countdown == (BLUE, 10)


def test_rule_9_2_losing_points_after_the_start_does_not_break_the_centre_A44() -> None:
    # Red liberates the 1-point leaf (3,-1): Blue drops to 19 points but keeps its path
    red_knights = sorted(land_cells((3, -1)) - {throne((3, -1))})[:8]  # Red's N for (3,-1) is 5
    g = blue_on_centre(
        centre_hold=2,
        guards_home=((3, -1),),
        turn="red",
        pieces={"red": {"king": (-8, -12), "knights": red_knights}},
        first={"red": FILLER["red"][:6]},
        liberations=[("red", (3, -1), 1)],
    )
    g.pass_turn()
    assert owner(g, (3, -1)) is None and g.scores()[BLUE] == 19
    assert g.countdown is None
    g.pass_turn()
    assert hold(g, BLUE, (0, 0)) == 3


def test_rule_9_2_only_the_holders_turns_tick_and_the_last_one_ends_the_game_A47() -> None:
    g = blue_on_centre(countdown=("blue", 3), pieces={"green": green_with([], extra=((-2, 1),))})
    left = []
    for _ in range(2):
        g.pass_turn()  # Blue
        left.append(g.countdown)
        passes(g, 2)  # Green, Red
        left.append(g.countdown)
    assert left == [(BLUE, 2), (BLUE, 2), (BLUE, 1), (BLUE, 1)]
    assert not g.over
    g.pass_turn()
    assert over(g) == (True, "countdown", [BLUE])
    assert owner(g, (0, 0)) is None and g.scores()[BLUE] == 20
    assert g.countdown == (BLUE, 0)  # docs/RULES.md decision 5: the holder stays named


def test_rule_9_2_completion_is_checked_before_the_tick() -> None:
    g = blue_on_centre(centre_hold=3, countdown=("blue", 1))
    g.pass_turn()
    assert g.end_reason == "centre" and owner(g, (0, 0)) == "blue"


def test_rule_9_2_the_countdown_is_never_restarted() -> None:
    g = blue_on_centre(
        centre_hold=1,
        countdown=("blue", 5),
        turn="red",
        pieces={"red": {"king": (-8, -12), "knights": [(-3, 1), (-7, -12)]}},
    )
    play(g, (-3, 1), (-2, 1))  # a second interruption
    assert g.countdown == (BLUE, 5)


def test_rule_9_2_the_holder_may_repair_while_the_clock_runs() -> None:
    g = blue_on_centre(countdown=("blue", 6), pieces={"green": green_with([], extra=((-2, 1),))})
    play(g, guard_cell((1, 0)), (2, 0))  # a fast knight from (1,0) makes it 3 against need 3
    assert hold(g, BLUE, (0, 0)) == 1
    assert g.countdown == (BLUE, 5)


def test_rule_9_2_an_end_request_is_allowed_during_a_countdown_A59() -> None:
    g = blue_on_centre(
        centre_hold=1,
        countdown=("blue", 5),
        turn="green",
        pieces={"green": green_with(GREEN_LANDS)},
        owners={"green": GREEN_LANDS},
    )
    assert g.can_request_end()
    g.request_end()
    assert g.end_reason == "end_request"
    assert owner(g, (0, 0)) == "blue"  # Blue's complete centre position is concretised (9.4)
    assert g.scores() == [33, 36, 0] and g.winners == [GREEN]


# ---- 9.3 who may request the end ----------------------------------------------------------------
def ring1_blue(
    king_cell: Cell, lands: list[Land] = RING1, *, pieces: dict[str, Any] | None = None, **kwargs: Any
) -> Game:
    """Blue owning ``lands``: a guard knight in each ring-1 land, the other knights at home."""
    guards = [guard_cell(x) for x in lands if x in RING1]
    spare = START_CELLS[: 2 + len(lands) - len(guards)]
    blue = {"king": king_cell, "knights": guards + spare}
    return game(pieces={"blue": blue, **(pieces or {})}, owners={"blue": lands}, **kwargs)


FIVE_RING1_PLUS = RING1[:5] + [(4, -1), (3, 1), (3, 0)]  # 30 + 2 + 2 + 1 = 35 points


@pytest.mark.parametrize(
    "lands, king_cell, legal",
    [
        (RING1, (5, -2), True),  # 36 points, king on the throne of its (disconnected) land (1,0) (A55)
        (RING1, (20, -8), True),  # on the start land (A55)
        (FIVE_RING1_PLUS, (5, -2), True),  # exactly 35, checked before losing (1,0) (A54)
        (FIVE_RING1_PLUS[:-1], (5, -2), False),  # 34 points
        (RING1, (10, -4), False),  # king on the neutral land (2,0)
        (RING1, (-12, 21), False),  # king in Green's start land
    ],
    ids=["36-own-land", "start-land", "exactly-35", "34-points", "neutral-land", "rival-start-land"],
)
def test_rule_9_3_end_request_needs_35_points_and_the_king_on_an_own_land(
    lands: list[Land], king_cell: Cell, legal: bool
) -> None:
    g = ring1_blue(king_cell, lands)
    assert g.can_request_end() == legal
    if legal:
        g.request_end()
        assert g.over and g.end_reason == "end_request"
    else:
        before = snapshot(g)
        with pytest.raises(IllegalActionError):
            g.request_end()
        assert snapshot(g) == before
        assert all(not m.is_end_request for m in g.legal_moves())


# ---- 9.4 what an end request does -------------------------------------------------------------
def test_rule_9_4_the_request_replaces_the_move_and_the_requesters_positions_do_not_count_A51() -> None:
    # Blue's liberation of Red's (4,-1) is one turn from completion; the request ends the game at once
    lib_knights = sorted(land_cells((4, -1)) - {throne((4, -1))})[:3]
    g = game(
        pieces={
            "blue": {"king": (5, -2), "knights": [guard_cell(x) for x in RING1[:5]] + lib_knights},
            "red": {"king": (-8, -12), "knights": [(-8, -11), (-7, -12), (-7, -11)]},
        },
        owners={"blue": RING1, "red": [(4, -1)]},
        liberations=[("blue", (4, -1), 1)],
    )
    g.request_end()
    assert owner(g, (4, -1)) == "red"
    assert g.turn == BLUE and g.round == 1  # no end of turn ran
    assert g.scores() == [30, 0, 2]


def test_rule_9_4_others_complete_positions_are_concretised_whatever_their_counter_A52() -> None:
    # Green's king sits on (-3,3) with one knight (counter 0); Red's 3 knights stand in Blue's
    # (1,-4), next to Red's start land (counter 0). Both conditions hold now.
    red_lib = sorted(land_cells((1, -4)) - {throne((1, -4))})[:3]
    g = ring1_blue(
        (5, -2),
        RING1 + [(1, -4)],
        pieces={
            "green": {"king": throne((-3, 3)), "knights": [guard_cell((-3, 3)), (-12, 19)]},
            "red": {"king": (-8, -12), "knights": red_lib},
        },
        first={"red": FILLER["red"][:1]},
    )
    assert g.scores() == [38, 0, 0]
    green_knights = knights(g, GREEN)
    g.request_end()
    assert owner(g, (-3, 3)) == "green" and owner(g, (1, -4)) is None and owner(g, (1, 0)) is None
    assert g.scores() == [30, 1, 0]
    assert knights(g, GREEN) == green_knights  # no new knight for a concretised conquest
    assert first_conquered(g, GREEN) == set()  # docs/RULES.md decision 6


def test_rule_9_4_a_position_that_does_not_hold_now_is_not_concretised_A52() -> None:
    g = ring1_blue(
        (5, -2),
        pieces={
            "green": {"king": throne((-3, 3)), "knights": [guard_cell((-3, 3)), (-12, 19)]},
            "red": {"king": (-8, -12), "knights": [(-10, 15), (-7, -12)]},  # a Red knight inside (-3,3)
        },
        holds=[("green", (-3, 3), 3)],
    )
    g.request_end()
    assert owner(g, (-3, 3)) is None


@pytest.mark.parametrize(
    "lands, centre_hold, concretised",
    [(CENTRE_PATH, 0, True), (CENTRE_PATH[:-1], 0, False), (CENTRE_PATH[:-1], 2, True)],
    ids=["20-points-counter-0", "19-points-counter-0", "19-points-counter-2"],
)
def test_rule_9_4_a_centre_position_with_counter_0_needs_the_point_minimum(
    lands: list[Land], centre_hold: int, concretised: bool
) -> None:
    g = blue_on_centre(
        lands=lands,
        centre_hold=centre_hold,
        turn="green",
        pieces={"green": green_with(GREEN_LANDS)},
        owners={"green": GREEN_LANDS},
    )
    g.request_end()
    assert (owner(g, (0, 0)) == "blue") == concretised


def test_rule_9_4_a_concretised_conquest_may_take_a_land_of_the_requester_A53() -> None:
    # Blue owns (-3,3), next to Green's start land; Green's king sits on its throne with the 2
    # knights a rival-owned land needs
    g = ring1_blue(
        (5, -2),
        RING1 + [(-3, 3)],
        pieces={
            "green": {"king": throne((-3, 3)), "knights": [guard_cell((-3, 3)), (-8, 14)]},
        },
    )
    g.request_end()
    assert owner(g, (-3, 3)) == "green"


def test_rule_9_4_the_requester_keeps_everything_when_its_king_is_on_its_start_land() -> None:
    g = ring1_blue((20, -8))
    g.request_end()
    assert owner(g, (4, 0)) == "blue"  # start lands never change owner (rule 2.2)
    assert all(owner(g, x) == "blue" for x in RING1)
    assert g.scores()[BLUE] == 36


def test_rule_9_4_liberations_of_others_are_concretised_too() -> None:
    g = ring1_blue(
        (20, -8),
        RING1 + [(1, -4)],
        pieces={
            "red": {"king": (-8, -12), "knights": sorted(land_cells((1, -4)) - {throne((1, -4))})[:3]},
        },
        first={"red": FILLER["red"][:1]},
        liberations=[("red", (1, -4), 1)],
    )
    assert lib(g, RED, (1, -4)) == 1
    g.request_end()
    assert owner(g, (1, -4)) is None and g.scores()[BLUE] == 36
    assert lib(g, RED, (1, -4)) == 0  # docs/RULES.md decision 2: the changed land's counters are cleared


# ---- truncation (A57, not a rule) ---------------------------------------------------------------
def test_A57_the_engine_truncates_after_max_rounds_without_winners_or_concretisation() -> None:
    g = game(
        max_rounds=2,
        pieces={"green": {"king": throne((-3, 3)), "knights": [guard_cell((-3, 3)), (-12, 19)]}},
        holds=[("green", (-3, 3), 1)],
        turns_to_conquer=8,
    )
    passes(g, 5)
    assert not g.over and g.round == 2
    g.pass_turn()
    assert g.over and g.truncated and g.end_reason == "truncation"
    assert g.winners == [] and g.leaders() == [BLUE, GREEN, RED]
    assert g.round == 2  # decision: the round counter stays at max_rounds
    assert owner(g, (-3, 3)) is None and hold(g, GREEN, (-3, 3)) == 3
    with pytest.raises(IllegalActionError):
        g.pass_turn()


def test_A57_a_game_that_ends_by_a_rule_is_not_truncated() -> None:
    g = blue_on_centre(centre_hold=3, max_rounds=1)
    g.pass_turn()
    assert not g.truncated and g.end_reason == "centre"


def test_rule_1_4_the_game_ends_only_by_the_centre_the_countdown_or_an_end_request() -> None:
    g = game()
    for _ in range(30):  # ten rounds of passing end nothing
        g.pass_turn()
    assert not g.over and g.round == 11
