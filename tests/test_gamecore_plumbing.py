"""The shared room's plumbing (issue 47 item 1): AEC bookkeeping, vector-env checks and record helpers, each
tested once here on a toy game, and each engine shown to use it instead of a copy of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

from gamecore.aec import BoardGameAEC, as_action, check_reset_options, check_seed, classic_wrappers, game_metadata
from gamecore.records import check_fields, check_format, write_atomically
from gamecore.vector_checks import check_action_batch, check_count, shown

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("dw_env", "alveole_env", "conquer_env", "frontera_env")


class Countdown(BoardGameAEC):
    """A toy two-player game: players alternate saying 0 or 1; the game ends when the sum reaches 2."""

    metadata = game_metadata("countdown_v0", ("ansi",))

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__()
        self._check_render_mode(render_mode)
        self._declare_spaces(["player_0", "player_1"], spaces.Box(0, 2, (1,), np.int8), 2)
        self.total = 0

    def observe(self, agent: str) -> dict[str, Any]:
        return {"observation": np.array([self.total], np.int8), "action_mask": np.ones(2, np.int8)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        check_seed(seed)
        check_reset_options(options)
        self.total = 0
        self._start(0, {"note": "start"})

    def step(self, action: Any) -> None:
        agent = self._acting_agent(action)
        if agent is None:
            return
        self._cumulative_rewards[agent] = 0
        self.total += as_action(action, 2, ValueError)
        self._clear_rewards()
        if self.total >= 2:
            other = self.possible_agents[1 - self.possible_agents.index(agent)]
            self.rewards = {agent: 1.0, other: -1.0}
            self._end_game(False, {"total": self.total})
        else:
            self.agent_selection = self.possible_agents[1 - self.possible_agents.index(agent)]
        self._accumulate_rewards()

    def _render_text(self) -> str:
        return f"total {self.total}"


def test_the_base_passes_pettingzoos_api_test_on_a_toy_game() -> None:
    from pettingzoo.test import api_test

    api_test(Countdown(), num_cycles=20)


def test_a_step_before_reset_and_after_every_agent_is_removed_names_the_protocol() -> None:
    env = Countdown()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step(0)
    env.reset()
    env.step(1)
    env.step(1)
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.infos["player_0"] == {"total": 2} and env.infos["player_0"] is not env.infos["player_1"]
    while env.agents:
        env.step(None)
    with pytest.raises(RuntimeError, match=r"every agent has been removed.*call reset\(\)"):
        env.step(0)


def test_new_game_bookkeeping_gives_each_agent_its_own_info_copy() -> None:
    env = Countdown()
    env.reset()
    env.infos["player_0"]["note"] = "changed"
    assert env.infos["player_1"] == {"note": "start"}
    assert env.agent_selection == "player_0" and env.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_render_mode_and_render_dispatch() -> None:
    with pytest.raises(ValueError, match=r"render_mode 'video' is not supported; allowed: None, \['ansi'\]"):
        Countdown(render_mode="video")
    env = Countdown(render_mode="ansi")
    env.reset()
    assert env.render() == "total 0"
    assert Countdown().render() is None  # no mode: a warning, no output


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (True, r"action must be an integer in 0\.\.4, got True"),
        (1.0, r"action must be an integer in 0\.\.4, got 1\.0"),
        ("x" * 500, r"action must be an integer in 0\.\.4, got 'xx"),
        (5, r"action 5 is out of range; the action space is Discrete\(5\)"),
        (-1, r"action -1 is out of range"),
    ],
)
def test_as_action_names_the_value_and_the_space(action: Any, message: str) -> None:
    with pytest.raises(LookupError, match=message) as caught:
        as_action(action, 5, LookupError)
    assert len(str(caught.value)) < 200  # the bounded echo (brief) of a huge value


def test_as_action_takes_a_one_element_integer_array_and_can_leave_the_range_to_the_rules() -> None:
    assert as_action(np.array([3]), 5, ValueError) == 3
    assert as_action(np.int16(4), 5, ValueError) == 4
    assert as_action(9, 5, ValueError, in_range=False) == 9


def test_seed_and_reset_options_checks() -> None:
    check_seed(None)
    check_seed(np.int64(3))
    with pytest.raises(ValueError, match="seed must be an integer or None, got 'x'"):
        check_seed("x")
    with pytest.raises(ValueError, match="seed must be an integer >= 0 or None, got -1"):
        check_seed(-1, nonnegative=True)
    assert check_reset_options(None) == {}
    with pytest.raises(ValueError, match=r"reset options must be a dict such as \{'fog': True\} or None, got 3"):
        check_reset_options(3, "{'fog': True}")


def test_classic_wrappers_end_the_game_on_an_illegal_action() -> None:
    env = classic_wrappers(Countdown())
    env.reset()
    with pytest.raises(AssertionError):
        env.step(7)  # out of the space: the assert wrapper refuses it before the game sees it
    assert env.unwrapped.total == 0


# ---- vector checks ---------------------------------------------------------------------------------------
def test_check_count_names_the_range() -> None:
    assert check_count("num_envs", np.int32(4), 8) == 4
    for bad in (0, 9, True, 2.0, "3"):
        with pytest.raises(ValueError, match=r"num_envs must be an integer in 1\.\.8, got "):
            check_count("num_envs", bad, 8)


def test_check_action_batch_asks_the_env_to_explain_the_first_bad_row() -> None:
    masks = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]], np.int8)
    seen: list[tuple[int, int]] = []

    def explain(row: int, action: int) -> str:
        seen.append((row, action))
        return f"row {row}: action {action} refused"

    assert check_action_batch([2, 1, 0], masks, explain).tolist() == [2, 1, 0]
    with pytest.raises(ValueError, match="row 1: action 0 refused"):
        check_action_batch([0, 0, 7], masks, explain)
    with pytest.raises(ValueError, match="row 0: action -1 refused"):
        check_action_batch(np.array([-1, 1, 3]), masks, explain)
    assert seen == [(1, 0), (0, -1)]
    with pytest.raises(ValueError, match=r"actions must be an integer array of shape \(3,\); got .*dtype float64"):
        check_action_batch([0.0, 1.0, 2.0], masks, explain)
    with pytest.raises(ValueError, match=r"actions must be 3 integers, one per row; got .*shape \(2,\)"):
        check_action_batch([0, 1], masks, explain, "3 integers, one per row")


def test_shown_lists_legal_actions_up_to_a_limit() -> None:
    mask = np.array([1, 1, 0, 1, 1], np.int8)
    assert shown(mask, 2) == "0, 1 ..."
    assert shown(mask, 9, {4: "4 (pass)"}) == "0, 1, 3, 4 (pass)"


# ---- records ---------------------------------------------------------------------------------------------
def test_check_fields_and_format_name_the_key_and_the_value() -> None:
    good = {"format": "toy-record", "moves": []}
    assert check_fields(good, ("format", "moves"), ("result",), ValueError) is good
    with pytest.raises(ValueError, match="a game record must be a JSON object, got list"):
        check_fields([], ("format",), (), ValueError)
    with pytest.raises(ValueError, match="unknown field 'colour'; allowed: format, moves, result"):
        check_fields({**good, "colour": 1}, ("format", "moves"), ("result",), ValueError)
    with pytest.raises(ValueError, match="missing field.*moves; required: format, moves"):
        check_fields({"format": "x"}, ("format", "moves"), (), ValueError)
    check_format("toy-record", "toy-record", ValueError)
    with pytest.raises(ValueError, match="record format must be 'toy-record', got 3"):
        check_format(3, "toy-record", ValueError, "record format")


def test_write_atomically_keeps_the_old_file_when_the_write_fails(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    write_atomically(target, '{"moves": [1]}\n')
    assert target.read_text(encoding="utf-8") == '{"moves": [1]}\n'
    with pytest.raises(UnicodeEncodeError):
        write_atomically(target, "half \ud800 a record")  # fails while writing: nothing replaces the file
    assert target.read_text(encoding="utf-8") == '{"moves": [1]}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left behind


# ---- every engine uses the room instead of a copy --------------------------------------------------------
@pytest.mark.parametrize(
    "copy",
    [
        "wrappers.TerminateIllegalWrapper(",  # the classic wrapper chain
        "self._cumulative_rewards = dict.fromkeys",  # new-game bookkeeping
        "def _protocol_error(",  # the protocol errors
        "You are calling render method",  # render()'s no-mode warning
        "def _positive_int(",  # vector-env count checks
    ],
)
def test_no_engine_repeats_the_shared_plumbing(copy: str) -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for engine in ENGINES
        for path in sorted((ROOT / engine).rglob("*.py"))
        if copy in path.read_text(encoding="utf-8")
    ]
    assert not offenders, f"{copy!r} is repeated in {offenders}; use gamecore instead"


def test_every_engines_aec_env_stands_on_the_shared_base() -> None:
    from alveole_env import alveole_v0
    from conquer_env import conquer_v0
    from dw_env import domain_wheel_v0
    from frontera_env import frontera_v0

    for module in (domain_wheel_v0, alveole_v0, conquer_v0, frontera_v0):
        assert issubclass(module.raw_env, BoardGameAEC), module.__name__
