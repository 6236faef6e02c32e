"""Frontera in the arena (docs/ARENA.md, "Frontera"): line-ups of 2..6 seats, balanced rotation, common random
numbers, the fair-share column, eliminations and endings. Small map, a few short games.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from dw_cli.main import main
from policies import games
from policies.games.frontera import FronteraOptions
from training.evaluation.arena import game_seed, play_game, run_arena, schedule
from training.evaluation.arena_config import SEATINGS, ArenaConfig, balanced_rotation, seatings
from training.evaluation.arena_report import format_table


@pytest.mark.parametrize("players", [5, 6])
def test_balanced_rotation_puts_every_strategy_in_every_seat_equally_often(players: int) -> None:
    rotation = seatings(players)
    assert rotation == balanced_rotation(players) and len(rotation) == 2 * players
    assert len(set(rotation)) == len(rotation)
    for spec in range(players):
        assert Counter(seating.index(spec) for seating in rotation) == dict.fromkeys(range(players), 2)
    follows = Counter((s[i], s[(i + 1) % players]) for s in rotation for i in range(players))
    neighbours = {(a, (a + 1) % players) for a in range(players)}
    assert follows == dict.fromkeys(neighbours | {(b, a) for a, b in neighbours}, players)


def test_up_to_four_players_play_every_permutation_and_domain_wheel_is_unchanged() -> None:
    assert seatings(3) == SEATINGS and len(seatings(4)) == 24 and len(seatings(2)) == 2


def _config(**kw: object) -> ArenaConfig:
    options = FronteraOptions(map="small", players=int(kw.pop("players", 3)), max_turns=int(kw.pop("turns", 18)))
    base: dict[str, object] = {"game": "frontera", "options": options, "opening_plies": 0, "bootstrap": 10}
    return ArenaConfig(**{**base, **kw})  # type: ignore[arg-type]


def test_game_j_of_every_line_up_plays_on_the_same_dice() -> None:
    """Common random numbers: the game seed depends on the game's number within its line-up, not the line-up."""
    config = _config(
        lineups=(("aggressor", "random", "random"), ("defender", "expansionist", "random")), games_per_lineup=8
    )
    tasks = schedule(config)
    by_deal: dict[int, set[int]] = {}
    for task in tasks:
        by_deal.setdefault(task.deal, set()).add(game_seed(config.seed, task.deal))
    assert sorted(by_deal) == list(range(8)) and all(len(s) == 1 for s in by_deal.values())
    assert len({game_seed(config.seed, j) for j in range(8)}) == 8
    first, other = (next(t for t in tasks if t.lineup == li and t.deal == 3) for li in (0, 1))
    rows = [play_game(t, config.options, config.seed, game_id="frontera") for t in (first, other)]
    assert rows[0]["game_seed"] == rows[1]["game_seed"] == game_seed(config.seed, 3)
    adapter = config.adapter
    starts = [adapter.new_seeded_game(config.options, r["game_seed"]).game.state for r in rows]
    assert starts[0].equals(starts[1])


def test_summary_has_fair_share_eliminations_and_endings() -> None:
    config = _config(lineups=(("aggressor", "expansionist", "random"),), games_per_lineup=6, turns=45)
    summary, rows = run_arena(config, progress=False)
    adapter = config.adapter
    assert adapter.seat_names == ("seat1", "seat2", "seat3")
    for row in rows:
        assert row["end_reason"] in adapter.end_reasons
        assert len(row["eliminated"]) == len(row["territories_end"]) == 3
        expected = 0.0 if row["end_reason"] == "truncation" else 1 / 3
        assert sum(row["territories_end"]) == 35 or row["end_reason"] != "last_standing"
        assert row["winners"] or expected == 0.0
    truncated = sum(r["end_reason"] == "truncation" for r in rows)
    for entry in summary["strategies"] + summary["seats"]:
        assert entry["fair_share"] == pytest.approx((6 - truncated) / 6 / 3)
    table = format_table(summary)
    assert "  fair  " in table and "eliminate" in table and "seventy p" in table
    assert "truncated games (turn limit, R-8.3) have no winner" in table
    assert sum(summary["overall"]["endings"].values()) == 6


@pytest.mark.parametrize("game_id", ["domain_wheel", "alveole", "conquer"])
def test_other_games_summaries_have_no_fair_share(game_id: str) -> None:
    """The fair-share column is Frontera's: the other games' results.json and tables stay as they were."""
    from training.evaluation.arena_stats import _Tally

    adapter = games.get(game_id)
    assert adapter.for_options(adapter.default_options()) is adapter and not adapter.report_fair_share
    assert _Tally(adapter).fair_entry() == {}
    assert _Tally(games.get("frontera")).fair_entry() == {"fair_share": 0.0}


def test_options_name_the_bad_key_or_value() -> None:
    with pytest.raises(
        ValueError, match="unknown Frontera option 'size'; allowed: map, players, fog, cards, max_turns"
    ):
        FronteraOptions.from_dict({"size": "small"})
    with pytest.raises(ValueError, match="option players must be an integer 2..6, got 7"):
        FronteraOptions.from_dict({"players": 7})
    with pytest.raises(ValueError, match="option map must be one of small, medium, large"):
        FronteraOptions(map="huge")
    with pytest.raises(ValueError, match="a Frontera line-up has 3 seats"):
        _config(lineups=(("random", "random"),))


def test_cli_takes_the_players_from_the_line_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(
        ["arena", "--game", "frontera", "--option", "map=small", "--option", "max_turns=12", "--lineup",
         "aggressor,defender", "--games", "2", "--workers", "1", "--no-progress", "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "Frontera, 2 games = 1 line-up(s) x 2 games over 2 seatings" in text and "2 players" in text
    assert (out / "results.json").exists()


def test_a_failing_seat_plays_what_the_clock_would_R_12() -> None:
    """The arena's fallback for a seat that fails is the automatic player's action: legal in the deployment and
    in a turn."""
    adapter = games.get("frontera").for_options(FronteraOptions(map="small", players=3))
    match = adapter.new_seeded_game(FronteraOptions(map="small", players=3), 4)
    seen = set()
    while match.game.state.turn_index < 4:
        seen.add(match.game.phase)
        match.play(adapter.fallback_action(match))
    assert {"setup", "reinforce", "regroup"} <= seen
