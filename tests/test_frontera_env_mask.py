"""The RL action space (spec 6.2) and its mask (6.3) against the engine: block sizes, buckets, CC, and the
exhaustive check that the mask is the single source of legality in every state random play reaches."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from frontera_env import frontera_v0
from frontera_env.actions import Attack, Deploy, Occupy, Regroup, Trade
from frontera_env.encoding import (
    PATTERNS,
    Choose,
    Layout,
    Selection,
    action_mask,
    bucket_amounts,
    card_choice,
    decode,
)
from frontera_env.engine import Game
from frontera_env.map_file import reference_map
from frontera_env.observation import DECISIONS, decision
from frontera_env.rules import legal
from frontera_env.rules_errors import IllegalAction
from frontera_env.view import view
from tests.frontera_helpers import line_map, position, roll


def check_mask(layout: Layout, game: Game, sel: Selection, blitz: bool = True) -> np.ndarray:
    """Assert, index by index, that the mask allows exactly what the engine accepts (spec 6.3); return it.

    An allowed index decodes to an action in the engine's legal list that ``check`` accepts, or, for a regroup
    selection step, to a territory some legal Regroup starts from (or goes to). A refused index decodes to
    nothing, to an action ``check`` refuses, or to a selection step no legal Regroup completes.
    """
    mask = action_mask(layout, game, sel, blitz, np.zeros(layout.size, np.int8))
    if game.over:
        assert not mask.any()
        return mask
    assert mask.any(), f"no legal action in phase {game.phase}"
    legal_set = set(game.legal_actions())
    regroups = [a for a in legal_set if isinstance(a, Regroup)]
    for i in range(layout.size):
        d = decode(layout, game, sel, i, blitz)
        if isinstance(d, Choose):
            src = d.territory if d.what == "source" else sel.source
            dst = None if d.what == "source" else d.territory
            ok = any(r.source == src and (dst is None or r.dest == dst) for r in regroups)
        elif d is None:
            ok = False
        else:
            ok = d in legal_set
            try:
                legal.check(game.ctx, game.state, d)
                accepted = True
            except IllegalAction:
                accepted = False
            assert accepted == ok, f"{d}: the engine's legal list and its check disagree"
        assert bool(mask[i]) == ok, f"index {i} {layout.block(i)} -> {d}: mask {mask[i]}, engine {ok} ({game.phase})"
    return mask


@pytest.mark.parametrize(("size", "actions"), [("small", 507), ("medium", 795), ("large", 1198)])
def test_6_2_6_7_action_count_is_n_b_plus_2_plus_2e_plus_2b_plus_16(size: str, actions: int) -> None:
    board = reference_map(size)
    layout = Layout.for_map(board, 5)
    n, e = board.territory_count, len(board.edges)
    assert layout.size == n * 7 + 2 * e + 26 == actions
    assert Layout.for_map(board, 3).size == n * 5 + 2 * e + 22


def test_6_2_block_offsets_are_stable() -> None:
    layout = Layout.for_map(reference_map("small"), 5)
    assert (layout.deploy, layout.trade, layout.attack, layout.blitz, layout.occupy) == (0, 175, 188, 306, 424)
    assert (layout.end_attack, layout.regroup_from, layout.regroup_to, layout.regroup_amount) == (430, 431, 466, 501)
    assert layout.end_turn == 506 and layout.block(17) == ("deploy", 17)  # DEPLOY(t=3, b=2)
    assert layout.block(177) == ("trade", 2) and layout.block(306) == ("blitz", 0)
    assert layout.block(506) == ("end_turn", 0)
    assert (int(layout.src[0]), int(layout.dst[0])) == reference_map("small").edges[0]
    with pytest.raises(ValueError, match="outside 0..506"):
        layout.block(507)


@pytest.mark.parametrize(
    ("lo", "hi", "b", "expected"),
    [
        (1, 1, 5, (1,)),
        (1, 3, 5, (1, 2, 3)),
        (1, 5, 5, (1, 2, 3, 4, 5)),
        (1, 6, 5, (1, 2, 4, 5, 6)),  # 1 + (5*2*1 + 4) // 8 = 2, then 4 (half up), 5
        (1, 20, 5, (1, 6, 11, 15, 20)),
        (2, 9, 5, (2, 4, 6, 7, 9)),
        (1, 100, 2, (1, 100)),
        (3, 2, 5, ()),
    ],
)
def test_6_2_amount_buckets_exact_below_b_quarters_above(lo: int, hi: int, b: int, expected: tuple[int, ...]) -> None:
    amounts = bucket_amounts(lo, hi, b)
    assert amounts == expected
    assert list(amounts) == sorted(set(amounts))  # strictly increasing: no two buckets coincide


def test_6_2_buckets_out_of_range_are_refused_with_the_range() -> None:
    with pytest.raises(ValueError, match=r"buckets must be an integer in 2..64, got 1"):
        Layout.for_map(reference_map("small"), 1)


def test_6_2_cc_takes_paid_cards_first_then_lowest_id_and_wildcards_lowest() -> None:
    board = line_map(12, 3)  # card t has symbol t mod 3; wildcards are 12 and 13
    game = position(board, [0] * 6 + [1] * 6, hands={0: [0, 3, 6, 13, 12]})
    game.state.paid[:] = False
    game.state.paid[6] = True
    assert card_choice(game, PATTERNS.index("GGG")) == (0, 3, 6)
    assert card_choice(game, PATTERNS.index("GGW")) == (0, 6, 12)  # paid 6 first, then the lowest, wildcard 12
    assert card_choice(game, PATTERNS.index("GWW")) == (6, 12, 13)
    assert card_choice(game, PATTERNS.index("CCC")) is None


def _choose(mask: np.ndarray, layout: Layout, rng: np.random.Generator) -> int:
    """Return a random allowed index, leaning to blitzes and whole-pool deploys so random games move on."""
    legal_idx = np.flatnonzero(mask)
    blitz = legal_idx[(legal_idx >= layout.blitz) & (legal_idx < layout.occupy)]
    if blitz.size and rng.random() < 0.5:
        return int(rng.choice(blitz))
    top = legal_idx[(legal_idx < layout.trade) & (legal_idx % layout.buckets == layout.buckets - 1)]
    if top.size and rng.random() < 0.6:
        return int(rng.choice(top))
    return int(rng.choice(legal_idx))


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_6_3_mask_equals_engine_legality_in_every_state_random_play_reaches(players: int) -> None:
    env = frontera_v0.raw_env(players=players, size="small", max_turns=5 * players, fog=players % 2 == 1)
    rng = np.random.default_rng(players)
    seen: Counter[str] = Counter()
    env.reset(seed=100)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = check_mask(env.layout, env.game, env.selection, env.options.blitz)
        seat = env.possible_agents.index(agent)
        seen[DECISIONS[decision(view(env.game.ctx, env.game.state, seat), env.selection)]] += 1
        assert np.array_equal(env.observe(agent)["action_mask"], mask)
        env.step(_choose(mask, env.layout, rng))
    common = {"setup", "reinforce", "attack", "window", "regroup_source", "regroup_dest", "regroup_amount"}
    assert common <= set(seen), seen


def test_6_3_mask_with_blitz_off_refuses_every_blitz_and_keeps_attacks() -> None:
    board = line_map(6)
    game = position(board, [0, 0, 0, 1, 1, 1], [1, 1, 5, 1, 1, 1])
    layout = Layout.for_map(board, 5)
    game.apply(Deploy(2, game.state.pool))
    mask = check_mask(layout, game, Selection(), blitz=False)
    assert not mask[layout.blitz : layout.occupy].any()
    edge = board.edges.index((2, 3))
    assert mask[layout.attack + edge] and decode(layout, game, Selection(), layout.blitz + edge, False) is None


def test_6_3_R6_4_window_then_forced_trade_then_forced_deploy_after_an_elimination() -> None:
    board = line_map(12)  # card t has symbol t mod 3: seat 0's G, C, G, C hold no set; seat 1's are B, B
    owners = [0, 0, 0, 0, 1] + [2] * 7
    game = position(board, owners, [1, 1, 1, 5] + [1] * 8, players=3, hands={0: [0, 1, 3, 4], 1: [2, 5]})
    layout, sel = Layout.for_map(board, 5), Selection()
    check_mask(layout, game, sel)  # reinforce with a pool and four cards that hold no set
    game.apply(Deploy(3, game.state.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(3, 4))  # seat 1 is eliminated; its two cards make a hand of 6
    assert game.phase == "window" and game.state.hand_len[0] == 6
    mask = check_mask(layout, game, sel)
    assert mask[layout.occupy + layout.buckets] and not mask[layout.end_attack]  # KEEP; no attack with 5+ cards
    game.apply(Occupy(int(game.state.window[2])))
    assert game.phase == "forced"
    mask = check_mask(layout, game, sel)
    assert np.flatnonzero(mask).min() >= layout.trade and np.flatnonzero(mask).max() < layout.attack  # TRADE only
    game.apply(Trade(card_choice(game, PATTERNS.index("GCB")) or (0, 1, 2)))
    mask = check_mask(layout, game, sel)
    assert np.flatnonzero(mask).max() < layout.trade  # DEPLOY only
    assert DECISIONS[decision(view(game.ctx, game.state, 0), sel)] == "forced_deploy"


def test_6_3_an_index_outside_the_mask_is_refused_naming_the_state_and_the_allowed() -> None:
    env = frontera_v0.raw_env(players=2)
    env.reset(seed=5)
    before = env.game.state.copy()
    with pytest.raises(IllegalAction, match=r"action 506 \(end_turn 0\) is not legal for player_\d in the setup"):
        env.step(env.layout.end_turn)
    assert env.game.state.equals(before)
    with pytest.raises(IllegalAction, match=r"out of range; the action space is Discrete\(507\)"):
        env.step(507)


def test_6_3_R4_3_a_hand_of_five_must_trade_before_attacking_then_trades_and_attacks_both_show() -> None:
    board = line_map(12)  # wildcards are 12 and 13
    owners = [0] * 6 + [1] * 6
    game = position(board, owners, [1] * 5 + [6] + [1] * 6, hands={0: [0, 1, 3, 4, 12]})
    layout, sel = Layout.for_map(board, 5), Selection()
    game.apply(Deploy(5, game.state.pool))
    mask = check_mask(layout, game, sel)  # pool 0 but five cards: TRADE only (R-4.3, A18)
    assert not mask[layout.attack : layout.end_attack + 1].any()
    assert {PATTERNS[p] for p in np.flatnonzero(mask[layout.trade : layout.attack])} == {"GGW", "CCW", "GCW"}
    game.apply(Trade(card_choice(game, PATTERNS.index("GCW")) or (0, 1, 12)))
    mask = check_mask(layout, game, sel)  # the trade's armies are the pool again
    assert mask[layout.deploy : layout.trade].any() and not mask[layout.end_attack]


def test_6_3_R6_2_the_occupy_bucket_equal_to_keep_is_masked_and_decodes_to_nothing() -> None:
    board = line_map(12)
    game = position(board, [0] * 6 + [1] * 6, [1] * 5 + [12] + [1] * 6)
    layout, sel = Layout.for_map(board, 5), Selection()
    game.apply(Deploy(5, game.state.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(5, 6))
    a, lo, hi = (int(x) for x in game.state.window[2:5])
    amounts = bucket_amounts(lo, hi, 5)
    assert a in amounts  # a = 3 is bucket 2 of 1..hi
    mask = check_mask(layout, game, sel)
    same = amounts.index(a)
    assert not mask[layout.occupy + same] and decode(layout, game, sel, layout.occupy + same, True) is None
    assert mask[layout.occupy + 5] and decode(layout, game, sel, layout.occupy + 5, True) == Occupy(a)
