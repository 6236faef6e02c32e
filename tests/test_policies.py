"""Seat policies (issue 4): legal moves only, seeded determinism, the registry, and the scripted AIs'
toolkit (spec section 6) checked against the engine's own rules (rules 6.2, 7.1, 9.3-9.4)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import BLUE, CENTRE_PATH, GREEN, game, land_cells, throne

from dw_env.engine import END_REQUEST_MOVE, Game, Move
from dw_env.geometry import build_geometry
from dw_env.info import NUM_PLAYERS
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from dw_env.rules.territory import conquest_holds, liberation_holds
from policies import available, display_name, make
from policies.base import Policy
from policies.domain_wheel import toolkit as tk

NAMES = ["balanced", "expansionist", "center", "raider", "guardian", "random"]
SCRIPTED = NAMES[:-1]
#: small maps and both variants of rules 4.5 (fast knights) and 4.11 (king not alone), other K
OPTION_SETS: list[dict[str, Any]] = [
    {"land_radius": 1, "map_radius": 2, "max_rounds": 40},
    {"land_radius": 2, "map_radius": 2, "max_rounds": 40, "fast_knights": False},
    {"land_radius": 1, "map_radius": 3, "max_rounds": 40, "king_may_be_alone": False},
    {"land_radius": 2, "map_radius": 3, "max_rounds": 30, "turns_to_conquer": 2, "fast_knights": False,
     "king_may_be_alone": False},
    {"land_radius": 3, "map_radius": 2, "max_rounds": 30, "turns_to_conquer": 1},
]  # fmt: skip


def lineups() -> list[tuple[str, ...]]:
    """Return six line-ups in which every registered policy sits once in every seat."""
    return [tuple(NAMES[(k + s) % len(NAMES)] for s in range(NUM_PLAYERS)) for k in range(len(NAMES))]


def play(options: GameOptions, seats: tuple[str, ...], seed: int, check: bool = False) -> tuple[Game, list[Move]]:
    """Play one game; with ``check`` assert every action is among the engine's legal actions."""
    g = Game.new(options)
    policies = [make(name, seed=seed + i) for i, name in enumerate(seats)]
    for policy in policies:
        policy.reset()
    moves: list[Move] = []
    while not g.over:
        move = policies[g.turn].act(g, g.turn)
        if check:
            assert move in g.legal_moves(), f"{seats[g.turn]} chose illegal {move} in round {g.round}"
        g.play(move)
        moves.append(move)
    return g, moves


# ---- registry -------------------------------------------------------------------------------
def test_registry_lists_the_six_strategies_with_their_display_names() -> None:
    """Rule 10.1: Equilibrada, Expansionista, Directa al centro, Saqueadora, Guardiana, Aleatoria."""
    assert available() == NAMES
    assert [display_name(n) for n in NAMES] == [
        "Equilibrada",
        "Expansionista",
        "Directa al centro",
        "Saqueadora",
        "Guardiana",
        "Aleatoria",
    ]
    for name in NAMES:
        policy = make(name, seed=1)
        assert isinstance(policy, Policy)
        assert policy.name == name and policy.display_name == display_name(name)


def test_registry_error_names_the_unknown_policy_and_lists_the_available_ones() -> None:
    with pytest.raises(ValueError) as err:
        make("aggressive")
    message = str(err.value)
    assert "'aggressive'" in message
    for name in NAMES:
        assert name in message
    with pytest.raises(ValueError, match="unknown policy 'x'"):
        display_name("x")


# ---- legality and determinism ---------------------------------------------------------------
@pytest.mark.parametrize("opts", OPTION_SETS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_every_policy_plays_only_legal_moves(opts: dict[str, Any]) -> None:
    """Each policy in each seat, on small maps and both movement variants (rules 4.5, 4.11)."""
    options = GameOptions(**opts)
    for k, seats in enumerate(lineups()):
        g, moves = play(options, seats, seed=100 * k, check=True)
        assert g.over and moves


def test_scripted_policies_play_legal_moves_on_the_standard_map() -> None:
    options = GameOptions(max_rounds=60)
    for k, seats in enumerate([("balanced", "raider", "guardian"), ("center", "expansionist", "guardian")]):
        g, _ = play(options, seats, seed=7 + k, check=True)
        assert g.over


@pytest.mark.parametrize("name", NAMES)
def test_policies_are_deterministic_for_a_seed(name: str) -> None:
    options = GameOptions(land_radius=1, map_radius=2, max_rounds=30)
    seats = (name, "random", "random")
    first = play(options, seats, seed=5)[1]
    assert play(options, seats, seed=5)[1] == first
    policy = make(name, seed=3)
    g = Game.new(options)
    a = policy.act(g, 0)
    policy.reset(seed=3)
    assert policy.act(g, 0) == a


def test_acting_for_the_wrong_seat_is_an_error() -> None:
    g = Game.new()
    with pytest.raises(ValueError, match="seat 1"):
        make("balanced").act(g, 1)


# ---- toolkit against the engine -------------------------------------------------------------
def snapshots(count: int = 12) -> list[Game]:
    """Return positions from a seeded game of scripted AIs on the standard map."""
    g = Game.new(GameOptions(max_rounds=60))
    policies = [make(n, seed=i) for i, n in enumerate(("raider", "guardian", "center"))]
    out: list[Game] = []
    ply = 0
    while not g.over and len(out) < count:
        g.play(policies[g.turn].act(g, g.turn))
        ply += 1
        if ply % 9 == 0:
            out.append(g.copy())
    return out


def test_need_and_liberation_need_are_the_engines_thresholds() -> None:
    """need(p, L) (rule 6.2) and N + 3 + rivals (rule 7.1): one knight fewer fails, that many holds."""
    checked = 0
    for g in snapshots():
        sit = tk.Situation(g.geometry)
        G = g._tables
        for p in range(NUM_PLAYERS):
            sit.update(g, p)
            tm, dist = sit.territory[p], sit.dist[p]
            for land in range(g.geometry.num_lands):
                if sit.is_start[land] or sit.owner[land] == p:
                    continue
                others_king = any(q != p and sit.king_land[q] == land for q in range(NUM_PLAYERS))
                if not others_king and (land != sit.centre or dist[land] == 1):
                    scalars = g.scalars.copy()
                    scalars[lay.KING_CELL + p] = sit.throne[land]
                    counts = sit.counts.copy()
                    need = tk.need(sit, p, land)
                    assert need == sit.distance_factor(p, land) + 1 + (sit.owner[land] >= 0) + int(
                        counts.sum(axis=0)[land] - counts[p, land]
                    ) + (land == sit.centre)
                    counts[p, land] = need - 1
                    assert not conquest_holds(G, g.lands, scalars, counts, tm, dist, p, land, False, 0)
                    counts[p, land] = need
                    assert conquest_holds(G, g.lands, scalars, counts, tm, dist, p, land, False, 0)
                    checked += 1
                if sit.owner[land] >= 0 and not sit.kings_in(land):
                    counts = sit.counts.copy()
                    counts[p, land] = tk.liberation_need(sit, p, land) - 1
                    assert not liberation_holds(G, g.lands, g.scalars, counts, dist, p, land)
                    counts[p, land] += 1
                    assert liberation_holds(G, g.lands, g.scalars, counts, dist, p, land)
                    checked += 1
    assert checked > 500


def own_lands(points_wanted: int, rings: list[int], exclude: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Return non-start lands of the given rings, in order, until their points reach ``points_wanted``."""
    g = build_geometry(2, 4)
    chosen: list[tuple[int, int]] = []
    total = 0
    for ring in rings:
        for land in np.flatnonzero((g.land_ring == ring) & (g.is_start_land == 0)):
            ab = g.land_coord(int(land))
            if total >= points_wanted or ab in exclude:
                continue
            chosen.append(ab)
            total += int(g.land_points[land])
    assert total >= points_wanted
    return chosen


def with_lands(blue: list[tuple[int, int]], green: list[tuple[int, int]], blue_king: tuple[int, int]) -> Game:
    """Return a Blue-to-act position where each player owns the given lands (knights in the start land)."""
    blue_cells = sorted(land_cells((4, 0)) - {(20, -8)})
    green_cells = sorted(land_cells((-4, 4)) - {(-12, 20)})
    return game(
        turn="blue",
        pieces={
            "blue": {"king": blue_king, "knights": [c for c in blue_cells if c != blue_king][: 2 + len(blue)]},
            "green": {"king": (-12, 20), "knights": green_cells[: 2 + len(green)]},
        },
        owners={"blue": blue, "green": green},
    )


def test_can_win_by_request_simulates_rule_9_4() -> None:
    blue = own_lands(36, [1, 2], set())
    winning = with_lands(blue, [], (20, -8))
    assert winning.can_request_end() and tk.can_win_by_request(winning, BLUE)
    assert not tk.can_win_by_request(winning, GREEN)  # not Green's turn
    green = own_lands(40, [1, 2, 3], set(blue))
    losing = with_lands(blue, green, (20, -8))
    assert losing.can_request_end() and not tk.can_win_by_request(losing, BLUE)


@pytest.mark.parametrize("name", SCRIPTED)
def test_scripted_ais_request_the_end_only_when_it_wins(name: str) -> None:
    """Spec 6: every scripted AI requests the end if that wins (rules 9.3-9.5), never when it loses."""
    blue = own_lands(36, [1, 2], set())
    assert make(name, seed=0).act(with_lands(blue, [], (20, -8)), BLUE) == END_REQUEST_MOVE
    green = own_lands(40, [1, 2, 3], set(blue))
    move = make(name, seed=0).act(with_lands(blue, green, (20, -8)), BLUE)
    assert move != END_REQUEST_MOVE


def test_scripted_ai_steps_off_a_valuable_land_before_requesting() -> None:
    """Rule 9.4 step 3: the land under the requester's king is lost, so the king first moves to a cheap land."""
    blue = [*CENTRE_PATH, (0, -1), (1, -2), (2, -2), (0, 1)]  # 38 points, all in T(blue)
    g = build_geometry(2, 4)
    green = own_lands(33, [1, 2, 3], set(blue))
    position = with_lands(blue, green, throne((0, 1)))
    assert position.can_request_end() and not tk.can_win_by_request(position, BLUE)
    move = make("balanced", seed=0).act(position, BLUE)
    assert move.src == position.king_cell(BLUE)
    land = int(g.cell_land[move.dst])
    assert position.owner(land) == BLUE and g.land_points[land] < 5
    position.play(move)
    position.pass_turn()
    position.pass_turn()
    assert tk.can_win_by_request(position, BLUE)


def test_threats_report_rival_positions_with_their_turns_left() -> None:
    g = game(
        turn="blue",
        pieces={"green": {"king": throne((-3, 3)), "knights": [(-9, 16), (-10, 16)]}},
        holds=[("green", (-3, 3), 2)],
    )
    sit = tk.Situation(g.geometry).update(g, BLUE)
    (threat,) = tk.threats(sit, GREEN, turns_to_conquer=4)
    assert threat.land == g.geometry.land_index(-3, 3) and threat.kind == "conquest"
    assert threat.counter == 2 and threat.turns_left == 2
    assert threat.surplus == int(sit.counts[GREEN, threat.land] - sit.need[GREEN, threat.land])


def test_move_helpers_return_legal_moves_that_get_closer() -> None:
    """Paso 3-5: a knight enters the land next door in one fast move, the king heads for its throne."""
    g = Game.new()
    sit = tk.Situation(g.geometry).update(g, BLUE)
    target = g.geometry.land_index(3, 0)
    allowed = (g.board == lay.piece_code(BLUE, lay.KNIGHT)).astype(np.int8)
    knight = tk.knight_into(sit, target, allowed)
    assert knight is not None and knight in g.legal_moves()
    assert g.geometry.cell_land[knight.dst] == target
    king = tk.king_toward(sit, target)
    assert king is not None and king in g.legal_moves()
    t = g.geometry.land_throne[target]
    assert g.geometry.cell_distance(king.dst, t) < g.geometry.cell_distance(king.src, t)
    eta = tk.conquest_eta(sit, BLUE, knights_free=2, turns_to_conquer=4)
    assert eta[target] == 1 + int(sit.king_turns[target]) + 3
    assert not np.isfinite(eta[g.geometry.centre_land])  # rule 6.8: no path to ring 1 yet


# ---- scripts ------------------------------------------------------------------------------------
def test_bench_ai_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    """``dw bench ai`` end to end on a tiny budget: every policy timed, Random the reference."""
    from dw_cli.bench.ai import run

    results = run(seconds=0.1)
    assert set(results) == set(NAMES)
    assert all(r["decisions"] > 0 and r["median_ms"] > 0 for r in results.values())
    assert "vs random" in capsys.readouterr().out


def test_measure_script_smoke(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m policies.domain_wheel.measure`` end to end on a tiny budget, with its JSON report."""
    import json

    from policies.domain_wheel import measure

    out = tmp_path / "report.json"
    assert measure.main(["--games", "1", "--among", "2", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["vs_random"]) == set(SCRIPTED)
    assert report["among"]["endings"]["games"] == 2
    assert "among the scripted AIs" in capsys.readouterr().out


def test_make_takes_every_kind_of_seat_spec() -> None:
    """policies.make builds a seat from a name, a checkpoint, a package folder or a search spec."""
    from pathlib import Path

    import policies

    root = Path(__file__).resolve().parents[1] / "checkpoints"
    assert policies.make("balanced", seed=1).name == "balanced"
    assert type(policies.make(str(root / "small-agent"), seed=1)).__name__ == "PackagePolicy"
    assert type(policies.make(str(root / "small-agent.pt"), seed=1)).__name__ == "NetworkPolicy"
    assert type(policies.make(f"search:{root / 'small-agent.pt'}?playouts=2", seed=1)).__name__ == "SearchPolicy"
    with pytest.raises(ValueError, match="unknown strategy"):
        policies.make("no-such-strategy")


@pytest.mark.parametrize("seat", [3, -1, True, 1.0])
def test_learned_seats_refuse_a_seat_outside_0_to_2(seat: Any) -> None:
    """The compiled encoder indexes tables by seat: a bad one is a clear error, not an out-of-bounds read."""
    from pathlib import Path

    import policies
    from dw_env.engine import Game

    root = Path(__file__).resolve().parents[1] / "checkpoints"
    game = Game.new(land_radius=1, map_radius=2)
    for spec in (root / "small-agent.pt", root / "small-agent"):
        with pytest.raises(ValueError, match="seat 0..2"):
            policies.make(str(spec)).act(game, seat)
