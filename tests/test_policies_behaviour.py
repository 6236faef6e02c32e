"""The scripted AIs do what their names say (issue 4 acceptance, spec section 6), on the standard map.

A modest, seeded sample that fits CI; ``python -m policies.domain_wheel.measure`` plays the full >= 300-game
measurement. Metrics are defined in :mod:`policies.domain_wheel.measure`: lands owned at mid-game, centre
attempts (king on the centre throne, rule 6.8), rival lands taken (conquered, rule 6.6, or
liberated, rule 7.4) and blocks (a knight entering a land breaks a rival's running position,
rules 6.2, 6.4, 7.3).
"""

from __future__ import annotations

import pytest

from policies.domain_wheel import measure

SCRIPTED = ["balanced", "expansionist", "center", "raider", "guardian"]


@pytest.fixture(scope="module")
def among() -> dict[str, object]:
    """Every line-up of three different scripted AIs in every seat order (60 games)."""
    results = measure.among_scripted(60, seed=0)
    return {"summary": measure.summarise(results), "endings": measure.endings(results)}


def metric(among: dict[str, object], key: str) -> dict[str, float]:
    summary = among["summary"]
    assert isinstance(summary, dict)
    return {name: summary[name][key] for name in SCRIPTED}


@pytest.mark.parametrize("name", SCRIPTED)
def test_each_scripted_ai_beats_two_random_players(name: str) -> None:
    """Spec 6.6: Random is the reference opponent; each AI wins with seat rotation (>= 90 % over 300 games)."""
    results = measure.vs_random(name, games=6, seed=11)
    wins = sum(g.seats.index(name) in g.winners for g in results)
    assert wins >= 5, [(g.seats, g.end_reason, g.scores) for g in results]
    assert all(g.end_reason != "truncation" for g in results)


def test_games_among_scripted_ais_end_by_a_rule(among: dict[str, object]) -> None:
    """Rules 9.1-9.4 (centre, countdown, end request) end >= 80 % of games, not truncation (A57)."""
    endings = among["endings"]
    assert isinstance(endings, dict)
    assert endings["by_rule"] >= 0.8, endings


def test_expansionist_owns_the_most_lands_by_mid_game(among: dict[str, object]) -> None:
    lands = metric(among, "lands_mid")
    assert max(lands, key=lands.__getitem__) == "expansionist", lands


def test_center_attempts_the_centre_most_often(among: dict[str, object]) -> None:
    centre = metric(among, "centre_rate")
    assert max(centre, key=centre.__getitem__) == "center", centre
    assert centre["center"] >= 0.5


def test_raider_takes_the_most_rival_lands(among: dict[str, object]) -> None:
    taken = metric(among, "taken_per_game")
    assert max(taken, key=taken.__getitem__) == "raider", taken


def test_guardian_blocks_the_most_rival_positions(among: dict[str, object]) -> None:
    blocks = metric(among, "blocks_per_game")
    assert max(blocks, key=blocks.__getitem__) == "guardian", blocks


def test_expansionist_never_blocks_and_guardian_never_takes_the_centre(among: dict[str, object]) -> None:
    """Spec 6.2: the Expansionist hardly looks at rivals; spec 6.5: the Guardian guards, it does not race."""
    assert metric(among, "blocks_per_game")["expansionist"] < 0.25
    assert metric(among, "centre_rate")["guardian"] == 0.0
