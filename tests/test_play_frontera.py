"""Frontera's play adapter (docs/PLAY.md, "Frontera"): options, inputs, per-seat views (R-13) and replays.

No server here: the session is driven directly. The small reference map and three players keep each test in
milliseconds; the one whole game (scripted seats) takes about a second.
"""

from __future__ import annotations

from typing import Any

import pytest

from frontera_env.view import UNKNOWN
from play import games
from play.games import InputError
from play.games.frontera import FronteraSession
from policies.frontera import SEATS

ADAPTER = games.get("frontera")


def session(**options: Any) -> FronteraSession:
    opts = ADAPTER.seeded(ADAPTER.parse_options({"map": "small", "players": 3, **options}), 5)
    made = ADAPTER.new_session(opts, ["human:a", "human:b", "human:c"])
    assert isinstance(made, FronteraSession)
    return made


def own(s: FronteraSession, seat: int) -> list[int]:
    return [t for t, o in enumerate(s.game.state.owner) if o == seat]


def inp(s: FronteraSession, seat: int, **message: Any) -> dict[str, Any]:
    return s.apply(s.parse_input(seat, message))


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"map": "maps/evil.json"}, "map must be one of small, medium, large"),
        ({"players": 7}, "players must be an integer 2..6"),
        ({"players": True}, "players must be an integer 2..6"),
        ({"fog": "yes"}, "fog must be true or false"),
        ({"world": "no spaces!"}, "world"),
        ({"seed": 3}, "unknown Frontera option"),
        ({"max_turns": 3}, "unknown Frontera option"),
    ],
)
def test_room_options_are_strict_and_name_what_is_allowed(options: dict[str, Any], needle: str) -> None:
    with pytest.raises(InputError) as refused:
        ADAPTER.parse_options(options)
    assert refused.value.code == "bad_options" and needle in refused.value.message
    assert [o["name"] for o in refused.value.allowed] == ["map", "world", "players", "fog", "cards"]


def test_the_seed_is_the_rooms_secret_never_in_its_options_or_layout() -> None:
    opts = ADAPTER.seeded(ADAPTER.parse_options({"players": 4, "world": " abc-1 "}), 99)
    assert opts.world == "ABC-1" and opts.seed == 99
    assert "seed" not in ADAPTER.public_options(opts) and "seed" not in ADAPTER.layout(opts)["options"]
    assert ADAPTER.seat_count(opts) == 4 and len(ADAPTER.layout(opts)["seats"]) == 4


def test_layout_has_cells_names_regions_and_sea_links_to_draw() -> None:
    lay = ADAPTER.layout(ADAPTER.parse_options({"map": "small"}))
    assert len(lay["territories"]) == 35 and len(lay["regions"]) == 6
    assert all(t["cells"] and t["name"] for t in lay["territories"])
    assert all(r["name"] and r["bonus"] > 0 for r in lay["regions"])
    for a, b in lay["sea_links"]:
        assert b in lay["territories"][a]["sea"]


@pytest.mark.parametrize(
    ("seat", "message", "code"),
    [
        (0, {"action": "fly"}, "bad_message"),
        (0, {"action": "place", "cell": 999}, "bad_message"),
        (0, {"action": "place", "cell": "3"}, "bad_message"),
        (0, {"action": "place", "cell": 0, "count": 0}, "bad_message"),
        (0, {"action": "trade", "cards": [1, 2]}, "bad_message"),
        (0, {"action": "end_turn"}, "illegal_move"),
        (0, {"action": "ready"}, "illegal_move"),
    ],
)
def test_bad_inputs_get_codes_and_change_nothing(seat: int, message: dict[str, Any], code: str) -> None:
    s = session()
    before = s.view_for(seat)
    with pytest.raises(InputError) as refused:
        s.apply(s.parse_input(seat, message))
    assert refused.value.code == code and refused.value.message
    assert s.view_for(seat) == before and s.ply == 0


def test_placing_on_anothers_territory_is_refused_naming_rule_2_7() -> None:
    s = session()
    with pytest.raises(InputError) as refused:
        inp(s, 0, action="place", cell=own(s, 1)[0], count=1)
    assert refused.value.code == "illegal_move" and "R-2.7" in refused.value.message


def test_rule_2_7_several_seats_deploy_at_once_and_placements_stay_private_until_all_are_ready() -> None:
    s = session()
    assert s.acting() == [0, 1, 2]
    t0, t1 = own(s, 0)[0], own(s, 1)[0]
    base0, base1 = int(s.game.state.armies[t0]), int(s.game.state.armies[t1])
    inp(s, 1, action="place", cell=t1, count=2)
    inp(s, 0, action="place", cell=t0, count=3)
    assert s.view_for(0)["state"]["armies"][t0] == base0 + 3
    for viewer in (1, 2, None):
        assert s.view_for(viewer)["state"]["armies"][t0] == base0
    assert s.view_for(0)["state"]["armies"][t1] == base1
    assert [e["kind"] for e in s.view_for(2)["log"]] == ["deployment", "deployment"]
    assert "territory" not in s.view_for(2)["log"][1] and s.view_for(0)["log"][1]["territory"] == t0
    for seat in (0, 1, 2):  # every seat places the rest and declares itself ready
        left = s.game.state.deploy_left[seat]
        inp(s, seat, action="place", cell=own(s, seat)[-1], count=int(left))
        inp(s, seat, action="ready")
    assert s.game.phase == "reinforce" and s.acting() == [s.game.current]
    assert s.view_for(2)["state"]["armies"][t0] == s.view_for(0)["state"]["armies"][t0] == s.game.state.armies[t0]


def test_rule_2_7_a_ready_seat_may_take_armies_back_and_is_then_unready_but_cannot_place_more() -> None:
    s = session()
    t = own(s, 2)[0]
    inp(s, 2, action="place", cell=t, count=int(s.game.state.deploy_left[2]))
    inp(s, 2, action="ready")
    assert s.acting() == [0, 1]
    with pytest.raises(InputError) as refused:
        inp(s, 2, action="place", cell=t)
    assert refused.value.code == "illegal_move" and "R-2.7" in refused.value.message
    inp(s, 2, action="take_back", cell=t, count=1)
    assert s.acting() == [0, 1, 2]


def test_a_seat_that_is_not_the_current_player_is_told_who_acts() -> None:
    s = session()
    for seat in (0, 1, 2):
        inp(s, seat, action="place", cell=own(s, seat)[0], count=int(s.game.state.deploy_left[seat]))
        inp(s, seat, action="ready")
    other = next(p for p in (0, 1, 2) if p != s.game.current)
    with pytest.raises(InputError) as refused:
        s.parse_input(other, {"action": "end_attack"})
    assert refused.value.code == "not_your_turn" and refused.value.allowed == [s.game.current]


def test_rule_13_4_fog_hides_owner_and_armies_outside_sight_and_spectators_see_no_board() -> None:
    s = session(fog=True)
    lay = ADAPTER.layout(ADAPTER.parse_options({"map": "small"}))
    for seat in (0, 1, 2):
        st = s.view_for(seat)["state"]
        mine = {t for t in own(s, seat)}
        near = mine | {u for t in mine for u in lay["territories"][t]["land"] + lay["territories"][t]["sea"]}
        for t in range(35):
            if t in near:
                assert st["owner"][t] == s.game.state.owner[t]
            else:
                assert st["owner"][t] == UNKNOWN and st["armies"][t] == 0
    public = s.view_for(None)["state"]
    assert set(public["owner"]) == {UNKNOWN} and set(public["armies"]) == {0} and public["hand"] == []


def test_a_whole_game_of_scripted_seats_keeps_every_view_to_its_seat_and_replays_fog_free() -> None:
    s = session(fog=True)
    seats = [SEATS["expansionist"](seed=i) for i in range(3)]
    while not s.over:
        seat = s.acting()[0]
        s.apply(s.ai_action(seats[seat], s.ai_snapshot(), seat))
        if s.ply % 25 == 0:
            for viewer in (0, 1, 2):
                view = s.view_for(viewer)
                assert view["seat"] == viewer
                assert [c["id"] for c in view["state"]["hand"]] == s.game.state.hand_of(viewer)
                for entry in view["log"]:
                    if entry["kind"] == "trade" and entry["seat"] != viewer:
                        assert "cards" not in entry
            assert set(s.view_for(None)["state"]["owner"]) == {UNKNOWN}
    assert s.winners and s.view_for(None)["state"]["owner"] == [int(o) for o in s.game.state.owner]
    record = s.record()
    summary = ADAPTER.record_summary(record)  # what GET /api/records/ID answers, with the layout of its options
    assert ADAPTER.layout(ADAPTER.parse_options(summary["options"]))["key"] == "frontera-small-ref-3"
    cursor = ADAPTER.replay_start(record)
    mid = ADAPTER.replay_view(cursor, s.ply // 2)
    assert UNKNOWN not in mid["state"]["owner"] and mid["record_plies"] == s.ply
    assert ADAPTER.replay_view(cursor, s.ply)["winners"] == s.winners
    with pytest.raises(InputError) as refused:
        ADAPTER.replay_view(cursor, s.ply + 1)
    assert refused.value.code == "bad_ply"


def test_missed_move_events_tell_each_viewer_only_what_its_view_did() -> None:
    s = session()
    t0 = own(s, 0)[0]
    entry = inp(s, 0, action="place", cell=t0, count=2)
    event = {"version": 1, "type": "move", "seat": 0, "ply": 1, "entry": entry}
    assert "territory" not in entry and entry["kind"] == "deployment"
    assert s.event_for(event, 0)["entry"]["territory"] == t0
    assert "territory" not in s.event_for(event, 1)["entry"] and "territory" not in s.event_for(event, None)["entry"]


def test_the_clock_actions_are_the_engines_deployment_and_turn_timeouts() -> None:
    s = session()
    inp(s, 0, action="place", cell=own(s, 0)[0], count=1)
    s.apply(s.timeout_action(s.turn or 0))
    assert s.game.phase == "reinforce" and s.game.state.deploy_left.sum() == 0
    first = s.game.current
    s.apply(s.timeout_action(first))
    assert s.game.current != first and s.game.state.turn_index == 2
    assert s.record()["actions"][-2:] == [{"type": "deployment_timeout"}, {"type": "timeout"}]


def test_a_replay_shows_each_plys_log_with_its_seat_and_what_it_did_and_its_summary_names_the_winner() -> None:
    s = session()
    seats = [SEATS["aggressor"](seed=i) for i in range(3)]
    while not s.over:
        seat = s.acting()[0]
        s.apply(s.ai_action(seats[seat], s.ai_snapshot(), seat))
    record = s.record()
    cursor = ADAPTER.replay_start(record)
    end = ADAPTER.replay_view(cursor, s.ply)
    watched = s.view_for(None)["log"]  # what a spectator saw of the same plies as they happened
    assert [e["ply"] for e in end["log"]] == [e["ply"] for e in watched] == list(range(s.ply - 39, s.ply + 1))
    for replayed, live in zip(end["log"], watched, strict=True):
        assert live.items() <= replayed.items(), (live, replayed)
    assert end["last"] == end["log"][-1] and end["last"]["events"][-1]["type"] == "game_over"
    # a finished game's replay hides nothing: the deployment's placements show where they went (R-13 lifted)
    first = ADAPTER.replay_view(cursor, 1)
    assert first["log"][0]["kind"] == "place" and "territory" in first["log"][0] and first["turn"] is not None
    assert ADAPTER.replay_view(cursor, 0)["log"] == []
    summary = ADAPTER.record_summary(record)
    assert summary["result"]["winners"] == [["red", "blue", "green"][s.winners[0]]]
