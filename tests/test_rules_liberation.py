"""Rules 7.1-7.4: liberating a rival land without a king (manual section 7, spec R-7, A40-A43).

Red owns (3,0), next to Blue's start land (4,0): Blue's N there is 0, so Blue needs
3 knights inside plus one per other knight inside, and must hold it 2 of its own turns.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import (
    BLUE,
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
    territory,
    throne,
)

from dw_env.engine import Game

Cell = tuple[int, int]
Land = tuple[int, int]
START_CELLS = sorted(land_cells((4, 0)) - {(20, -8)})


def liberation_game(
    target: Land,
    own: int,
    *,
    red_inside: int = 0,
    green_inside: int = 0,
    red_owns: tuple[Land, ...] | None = None,
    blue_king: Cell = (20, -8),
    red_king: Cell = (-8, -12),
    green_king: Cell = (-12, 20),
    **kwargs: Any,
) -> Game:
    """Red owns ``target`` (unless ``red_owns`` says otherwise); ``own`` Blue knights stand inside it."""
    red_owns = (target,) if red_owns is None else red_owns
    inside = sorted(land_cells(target) - {throne(target), blue_king, red_king, green_king})
    mine = inside[:own]
    reds = inside[own : own + red_inside]
    greens = inside[own + red_inside : own + red_inside + green_inside]
    blue_total = 2 + len(FILLER["blue"])
    parked = [c for c in START_CELLS if c not in mine and c != blue_king][: blue_total - own]
    red_home = [(-8, -11), (-7, -12), (-7, -11), (-9, -11)]
    return game(
        pieces={
            "blue": {"king": blue_king, "knights": mine + parked},
            "red": {"king": red_king, "knights": reds + red_home[: 2 + len(red_owns) - red_inside]},
            "green": {"king": green_king, "knights": greens + [(-11, 19), (-12, 19)][: 2 - green_inside]},
        },
        owners={"red": list(red_owns)},
        first={"blue": FILLER["blue"]},
        **kwargs,
    )


def starts(target: Land, own: int, **kwargs: Any) -> bool:
    """Return True if Blue's end of turn (a pass) starts a liberation of ``target``."""
    g = liberation_game(target, own, **kwargs)
    g.pass_turn()
    return lib(g, BLUE, target) == 1


# ---- 7.1 what can be liberated -------------------------------------------------------------------
def test_rule_7_1_a_rival_land_without_kings_can_be_liberated_by_knights_alone() -> None:
    assert starts((3, 0), 3)  # Blue's king stays home


def test_rule_7_1_only_lands_owned_by_a_rival() -> None:
    assert not starts((3, 0), 5, red_owns=())  # neutral land
    g = game(
        pieces={"blue": {"king": (20, -8), "knights": [(16, -7), (16, -6), (15, -7)]}},
        owners={"blue": [(3, 0)]},
    )
    g.pass_turn()
    assert lib(g, BLUE, (3, 0)) == 0  # own land


@pytest.mark.parametrize("who", ["blue", "red", "green"])
def test_rule_7_1_no_king_of_any_player_may_be_in_the_land(who: str) -> None:
    assert starts((3, 0), 5)
    assert not starts((3, 0), 5, **{f"{who}_king": (17, -8)})


def test_rule_7_1_start_lands_can_never_be_liberated_rule_2_2() -> None:
    # ten Blue knights in Red's start land (Blue's N there is 7: need 10), Red's pieces elsewhere
    red_start = sorted(land_cells((0, -4)) - {(-8, -12)})
    g = game(
        pieces={
            "blue": {"king": (20, -8), "knights": red_start[:10]},
            "red": {"king": (-3, -11), "knights": [(-2, -11), (-4, -10)]},
        },
        first={"blue": FILLER["blue"]},
    )
    g.pass_turn()
    assert lib(g, BLUE, (0, -4)) == 0
    assert owner(g, (0, -4)) == "red"


# ---- 7.2 knights needed = N + 3, + 1 per other knight inside ---------------------------------------
NEED_CASES = [
    ("rival land touching the territory", (3, 0), 3, {}),
    ("an owner's knight inside counts (A41)", (3, 0), 4, {"red_inside": 1}),
    ("a third player's knight inside counts (A41)", (3, 0), 4, {"green_inside": 1}),
    ("one land between (N=1)", (2, 0), 4, {}),
    ("two lands between (N=2)", (1, 0), 5, {}),
]


@pytest.mark.parametrize("target, need, kwargs", [c[1:] for c in NEED_CASES], ids=[c[0] for c in NEED_CASES])
def test_rule_7_2_knights_needed(target: Land, need: int, kwargs: dict[str, Any]) -> None:
    assert not starts(target, need - 1, **kwargs)
    assert starts(target, need, **kwargs)
    assert starts(target, need + 1, **kwargs)


# ---- 7.3 hold 2 own turns ----------------------------------------------------------------------
@pytest.mark.parametrize("turns_to_conquer", [1, 4, 8])
def test_rule_7_3_a_liberation_takes_2_own_turns_whatever_the_conquest_option_A40(turns_to_conquer: int) -> None:
    g = liberation_game((3, 0), 3, turns_to_conquer=turns_to_conquer)
    g.pass_turn()
    assert lib(g, BLUE, (3, 0)) == 1 and owner(g, (3, 0)) == "red"
    passes(g, 2)
    assert lib(g, BLUE, (3, 0)) == 1  # other players' turns do not count
    g.pass_turn()
    assert owner(g, (3, 0)) is None


def test_rule_7_3_the_set_up_turn_counts_as_the_first() -> None:
    g = liberation_game((3, 0), 2)
    runner = min(knights(g, BLUE) & set(START_CELLS))
    play(g, runner, (17, -7))  # the third knight arrives from the start land
    assert lib(g, BLUE, (3, 0)) == 1


def test_rule_7_3_a_broken_liberation_resets() -> None:
    g = liberation_game((3, 0), 3, liberations=[("blue", (3, 0), 1)])
    assert (13, -6) in knights(g, BLUE)
    play(g, (13, -6), (12, -6))  # one of the three steps out into (2,0)
    assert lib(g, BLUE, (3, 0)) == 0 and owner(g, (3, 0)) == "red"


def test_rule_7_3_a_rival_entering_during_its_turn_resets_only_at_the_liberators_end_of_turn() -> None:
    g = game(
        turn="red",
        pieces={
            "blue": {"king": (20, -8), "knights": [(16, -7), (16, -6), (15, -7)]},
            "red": {"king": (-8, -12), "knights": [(14, -3), (-7, -12), (-7, -11)]},
        },
        owners={"blue": [(4, -1)], "red": [(3, 0)]},
        liberations=[("blue", (3, 0), 1)],
    )
    play(g, (14, -3), (14, -4))  # Red's knight enters (3,0)
    assert lib(g, BLUE, (3, 0)) == 1  # untouched in Red's end of turn (A35)
    g.pass_turn()  # Blue: 3 knights against need 4
    assert lib(g, BLUE, (3, 0)) == 0 and owner(g, (3, 0)) == "red"


# ---- 7.4 the land loses its owner ------------------------------------------------------------------
def test_rule_7_4_the_land_becomes_ownerless_and_the_liberator_gains_nothing() -> None:
    g = liberation_game((3, 0), 3, liberations=[("blue", (3, 0), 1)])
    before_knights, before_first = knights(g, BLUE), first_conquered(g, BLUE)
    assert g.scores() == [0, 0, 1]
    g.pass_turn()
    assert owner(g, (3, 0)) is None
    assert g.scores() == [0, 0, 0]
    assert knights(g, BLUE) == before_knights and first_conquered(g, BLUE) == before_first
    assert first_conquered(g, RED) == {(3, 0)}  # Red keeps its first-conquest record (rule 6.7)
    assert lib(g, BLUE, (3, 0)) == 0


def test_rule_7_4_decision_all_counters_on_the_land_are_cleared_at_once() -> None:
    g = liberation_game((3, 0), 3, liberations=[("blue", (3, 0), 1), ("green", (3, 0), 1)])
    g.pass_turn()
    assert owner(g, (3, 0)) is None
    assert lib(g, GREEN, (3, 0)) == 0


def test_rule_7_4_liberating_a_link_land_cuts_the_owners_territory() -> None:
    # Blue owns the chain (3,0)-(2,0). Red's nine knights in (3,0) (Red's N there is 6) complete
    # a liberation: (2,0) stays Blue's but drops out of Blue's territory, and Blue's
    # knight there can only step again (4.5, A8).
    red_knights = sorted(land_cells((3, 0)) - {(15, -6)})[:9]
    g = game(
        turn="red",
        pieces={
            "blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (21, -9), guard_cell((2, 0))]},
            "red": {"king": (-8, -12), "knights": red_knights},
        },
        owners={"blue": [(3, 0), (2, 0)]},
        first={"red": FILLER["red"][:7]},
        liberations=[("red", (3, 0), 1)],
    )
    assert territory(g, BLUE) == {(4, 0), (3, 0), (2, 0)}
    g.pass_turn()
    assert owner(g, (3, 0)) is None and owner(g, (2, 0)) == "blue"
    assert territory(g, BLUE) == {(4, 0)}
    assert g.scores()[BLUE] == 3
    assert all(k == {"step"} for k in destinations(g, guard_cell((2, 0))).values())


# ---- several positions at once (A42) and completions together (A43) -----------------------------
def test_rule_7_one_conquest_and_several_liberations_run_at_the_same_time_A42() -> None:
    # Blue's king conquers neutral (3,0) with one knight while 3+3 knights liberate Red's (4,-1)
    # and (3,1)
    lib_a = sorted(land_cells((4, -1)) - {throne((4, -1))})[:3]
    lib_b = sorted(land_cells((3, 1)) - {throne((3, 1))})[:3]
    g = game(
        pieces={
            "blue": {"king": (15, -6), "knights": [(16, -7)] + lib_a + lib_b},
            "red": {"king": (-8, -12), "knights": [(-8, -11), (-7, -12), (-7, -11), (-9, -11)]},
        },
        owners={"red": [(4, -1), (3, 1)]},
        first={"blue": FILLER["blue"][:5]},
    )
    g.pass_turn()
    assert (hold(g, BLUE, (3, 0)), lib(g, BLUE, (4, -1)), lib(g, BLUE, (3, 1))) == (1, 1, 1)


def test_rule_7_a_conquest_and_a_liberation_complete_in_the_same_end_of_turn_A43() -> None:
    lib_a = sorted(land_cells((4, -1)) - {throne((4, -1))})[:3]
    g = game(
        pieces={
            "blue": {"king": (15, -6), "knights": [(17, -7)] + lib_a},
            "red": {"king": (-8, -12), "knights": [(-8, -11), (-7, -12), (-7, -11)]},
        },
        owners={"red": [(4, -1)]},
        first={"blue": FILLER["blue"][:2]},
        holds=[("blue", (3, 0), 3)],
        liberations=[("blue", (4, -1), 1)],
    )
    before = len(knights(g, BLUE))
    g.pass_turn()
    assert owner(g, (3, 0)) == "blue" and owner(g, (4, -1)) is None
    assert len(knights(g, BLUE)) == before + 1
    assert king(g, BLUE) == (15, -6)
