"""GET /api/menu's difficulty levels and advanced list (issue 46 item 3), and a room seated with a level."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from play import levels
from play.server import ServerConfig, create_app
from policies import ladders

#: what would show as Markdown or markup in a player's text
MARKDOWN = re.compile(r"\*\*|`|\[[^\]]*\]\(|^#|<[a-z/]")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    records = tmp_path_factory.mktemp("records")
    with TestClient(create_app(ServerConfig(records=records, ai_workers=1))) as c:
        yield c


@pytest.fixture(scope="module")
def menu(client: TestClient) -> dict[str, Any]:
    answer = client.get("/api/menu")
    assert answer.status_code == 200
    return {g["id"]: g for g in answer.json()["games"]}


@pytest.mark.parametrize("game", ["domain_wheel", "alveole", "conquer"])
def test_every_game_lists_its_levels_named_in_both_languages(menu: dict[str, Any], game: str) -> None:
    found = menu[game]["levels"]
    by_ladder = {lad.name: lad for lad in ladders.for_game(game)}
    assert {lv["ladder"] for lv in found} == set(by_ladder)
    for lv in found:
        lad = by_ladder[lv["ladder"]]
        assert lv["id"] == f"level:{lad.name}:{lv['level']}"
        assert lv["names"] == {"es": f"Nivel {lv['level']}", "en": f"Level {lv['level']}"}
        assert set(lv["description"]) == {"es", "en"} and all(lv["description"].values())
        assert set(lv["ladder_label"]) == {"es", "en"}
        rated = ladders.ratings(lad.name).get(lv["level"])
        assert lv["rating"] == rated
        if rated is not None:
            assert rated["low"] <= rated["rating"] <= rated["high"]


def test_domain_wheel_offers_a_standard_and_a_small_ladder_up_to_the_stage_above_the_standard_agent(
    menu: dict[str, Any],
) -> None:
    standard = [lv for lv in menu["domain_wheel"]["levels"] if lv["ladder"] == "domain_wheel"]
    assert [lv["level"] for lv in standard] == list(range(1, len(standard) + 1))
    assert {lv["ladder"] for lv in menu["domain_wheel"]["levels"]} == {"domain_wheel", "domain_wheel-small"}
    top = ladders.load("domain_wheel").levels[-1]
    assert top.kind == "network" and top.strategy == "standard-stage9.pt"
    assert standard[-1]["level"] == len(ladders.load("domain_wheel").levels)
    assert standard[-1]["rating"]["rating"] > standard[-2]["rating"]["high"]  # the menu shows the measured gap


@pytest.mark.parametrize("game", ["domain_wheel", "alveole", "conquer"])
def test_the_advanced_list_has_clean_unique_names_without_markdown(menu: dict[str, Any], game: str) -> None:
    advanced = menu[game]["advanced"]
    assert advanced, "every game ships a trained agent"
    for lang in ("es", "en"):
        names = [a["names"][lang] for a in advanced]
        assert len(names) == len(set(names)), names
        assert not any(MARKDOWN.search(n) or ".pt" in n or "-agent" in n for n in names), names
    assert not any(MARKDOWN.search(a["summary"]) for a in advanced)
    assert all(len(a["summary"]) <= levels.SUMMARY_LIMIT for a in advanced)
    # a package and the checkpoint it was exported from are one agent: listed once
    agents = {a["id"].partition(":")[2].removesuffix(".pt") for a in advanced if a["kind"] != "search"}
    assert len(agents) == len([a for a in advanced if a["kind"] != "search"])


def test_standard_agent_appears_once_not_also_as_its_file_name(menu: dict[str, Any]) -> None:
    names = [a["names"]["es"] for a in menu["domain_wheel"]["advanced"]]
    assert names.count("Agente estándar") == 1 and "standard-agent" not in names


def test_plain_drops_markdown_and_cuts_at_a_word() -> None:
    text = "A **standard map** agent for `dw arena`, see [the card](x.md); land_radius=2 " + "word " * 60
    line = levels.plain(text)
    assert line.startswith("A standard map agent for dw arena, see the card; land_radius=2 word")
    assert line.endswith("word…") and len(line) <= levels.SUMMARY_LIMIT


def test_a_room_seated_with_level_2_plays_that_levels_strategy(client: TestClient, menu: dict[str, Any]) -> None:
    level = next(lv for lv in menu["conquer"]["levels"] if lv["level"] == 2)
    body = {
        "game": "conquer",
        "options": {"width": 9, "height": 9},
        "seats": [{"type": "human", "name": "Ana"}, {"type": "ai", "strategy": level["id"]}],
        "ai_speed": "instant",
    }
    answer = client.post("/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    seat = client.app.state.manager.rooms[answer.json()["room"]].seats[1]  # type: ignore[attr-defined]
    assert seat.strategy == level["id"] and seat.strategy_name == "Nivel 2"
    assert type(seat.policy).__name__ == type(ladders_seat("conquer", 2)).__name__


def ladders_seat(ladder: str, number: int) -> Any:
    from policies import games

    lad = ladders.load(ladder)
    return games.get(lad.game).make_seat(lad.levels[number - 1].spec(), 0)


def test_an_unknown_level_is_refused_naming_the_ids(client: TestClient) -> None:
    body = {"game": "conquer", "seats": [{"type": "human"}, {"type": "ai", "strategy": "level:conquer:99"}]}
    answer = client.post("/api/rooms", json=body)
    assert answer.status_code == 400 and "level:conquer:99" in answer.text and "level:conquer:1" in answer.text


def test_ratings_file_is_read_only_within_its_limit(tmp_path: Path) -> None:
    ladders.ratings_path("big", tmp_path).write_text("[" * 100_000, encoding="utf-8")
    assert ladders.ratings("big", tmp_path) == {}
