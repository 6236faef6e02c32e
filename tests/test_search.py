"""The search seat (policies/search.py): legal moves on both maps, budgets, tree reuse, spec errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dw_env.engine import Game
from dw_env.options import GameOptions
from policies.search import Node, SearchParams, SearchPolicy, check_spec, load, result_values, split_spec

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "checkpoints" / "small-agent.pt"
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=30)


class UniformEvaluator:
    """Uniform priors and a zero value: the search then reduces to visit-count exploration."""

    def __init__(self) -> None:
        self.calls = 0
        self.options: list[GameOptions] = []

    def prepare(self, options: GameOptions) -> None:
        self.options.append(options)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        logp = np.where(mask != 0, 0.0, -1e9)
        return logp, np.zeros(len(obs))


def _play(game: Game, seats: dict[int, object], plies: int) -> None:
    for _ in range(plies):
        if game.over:
            return
        move = seats[game.turn].act(game, game.turn)  # type: ignore[attr-defined]
        assert move in game.legal_moves()
        game.play(move)


@pytest.mark.parametrize("options", [SMALL, GameOptions(max_rounds=5)], ids=["small map", "standard map"])
def test_search_seat_plays_legal_moves_on_both_maps(options: GameOptions) -> None:
    seat = load(f"search:{AGENT}?playouts=4", seed=0)
    game = Game.new(options)
    _play(game, {0: seat, 1: seat, 2: seat}, 12)
    assert seat.last_playouts == 4


def _joint_priors(network: object, game: Game) -> dict[object, float]:
    """Every legal move's prior as the search defines it, computed here move by move: p(piece) * p(dst | piece),
    pass and end request by their phase-1 probability, normalised over the moves."""
    from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Move

    driver, net, p = network.driver, network.net, game.turn  # type: ignore[attr-defined]

    def probs(selected: int = -1) -> tuple[np.ndarray, np.ndarray]:
        obs, mask = driver.encode(game, p, selected)
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(obs.copy())[None])
        z = np.where(mask != 0, logits[0].double().numpy(), -np.inf)
        e = np.exp(z - z.max())
        return e / e.sum(), mask.copy()

    c = game.geometry.num_cells
    first, mask = probs()
    joint: dict[object, float] = {}
    for a in np.flatnonzero(mask):
        if a >= c:
            joint[PASS_MOVE if a == c else END_REQUEST_MOVE] = float(first[a])
            continue
        src = driver.cell_of(p, int(a))
        second, dst_mask = probs(src)
        for d in np.flatnonzero(dst_mask):
            joint[Move(src, driver.cell_of(p, int(d)))] = float(first[a] * second[d])
    total = sum(joint.values())
    return {move: value / total for move, value in joint.items()}


def _best_joint_move(network: object, game: Game) -> object:
    """The move with the highest probability under the network's two phases (the first of equals)."""
    joint = _joint_priors(network, game)
    return max(joint, key=joint.__getitem__)


def test_one_playout_plays_the_most_probable_move() -> None:
    """With one playout the root's most visited move is its highest prior: the most probable (piece,
    destination) pair of the network's two phases, or pass / end request by their phase-1 probability."""
    from policies.domain_wheel import network_policy

    seat = load(f"search:{AGENT}?playouts=1&reuse_tree=0", seed=0)
    network = network_policy.load(AGENT, greedy=True)
    game = Game.new(SMALL)
    network.act(game, 0)  # sets the network's driver up for this map
    kinds = set()
    for _ in range(45):
        if game.over:
            break
        move = seat.act(game, game.turn)
        assert move == _best_joint_move(network, game)
        kinds.add("pass" if move.is_pass else "end" if move.is_end_request else "move")
        game.play(move)
    assert {"pass", "move"} <= kinds


def test_a_node_holds_every_legal_move_once_with_its_joint_prior() -> None:
    """The root's moves are the engine's legal moves, each once, and each move's prior is the network's
    two-phase probability of it (the node keeps them as arrays and makes a Move only when one is played)."""
    from policies.domain_wheel import network_policy

    seat = load(f"search:{AGENT}?playouts=1&reuse_tree=0", seed=0)
    network = network_policy.load(AGENT, seed=1)
    game = Game.new(SMALL)
    network.act(game, 0)  # sets the network's driver up for this map
    specials = 0
    for _ in range(30):
        if game.over:
            break
        seat.act(game, game.turn)
        root = seat.last_root
        assert root is not None
        moves = [root.move(i) for i in range(root.num_moves)]
        assert len(set(moves)) == len(moves) == root.num_moves
        assert set(moves) == set(game.legal_moves())
        expected = _joint_priors(network, game)
        # the network runs the rows in one batch there, one by one here: float32 sums in another order
        np.testing.assert_allclose(root.priors, [expected[m] for m in moves], rtol=1e-4, atol=1e-12)
        specials += len(root.specials)
        game.play(network.act(game, game.turn))
    assert specials > 0  # some positions offered pass or end request


def test_search_is_reproducible_with_a_playout_budget() -> None:
    moves = []
    for _ in range(2):
        seat = load(f"search:{AGENT}?playouts=8", seed=3)
        game = Game.new(SMALL)
        picked = []
        for _ in range(6):
            move = seat.act(game, game.turn)
            picked.append(move)
            game.play(move)
        moves.append(picked)
    assert moves[0] == moves[1]


def test_playouts_spend_the_budget_and_visits_add_up() -> None:
    evaluator = UniformEvaluator()
    seat = SearchPolicy(evaluator, SearchParams(playouts=20, reuse_tree=False))
    game = Game.new(SMALL)
    seat.act(game, 0)
    assert evaluator.options == [SMALL]
    # the root's expansion plus one new position per playout (none of them finished yet)
    assert evaluator.calls == 1 + 20


def test_the_tree_is_reused_after_the_rivals_moves() -> None:
    evaluator = UniformEvaluator()
    seat = SearchPolicy(evaluator, SearchParams(playouts=3000))
    game = Game.new(SMALL)
    game.play(seat.act(game, 0))
    kept = seat.root
    # the rivals play the replies the tree explored most: the position reached is a node it already has
    for _ in range(2):
        assert kept is not None and kept.expanded
        most = int(np.argmax(kept.visits))
        game.play(kept.move(most))
        kept = kept.children[most]
    assert kept is not None and kept.expanded
    before = int(kept.visits.sum())
    calls = evaluator.calls
    seat.act(game, game.turn)
    assert seat.last_playouts == 3000
    assert int(kept.visits.sum()) == before + 3000  # the search grew the kept node, not a fresh root
    assert evaluator.calls - calls <= 3000  # and did not value the root again


def test_result_values_follow_rule_9_5() -> None:
    game = Game.new(SMALL)
    assert list(result_values(game)) == [0.0, 0.0, 0.0]  # not finished and not truncated: no winner
    node = Node(game, 0)
    assert not node.expanded


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("search:", "needs a network file"),
        (f"search:{AGENT}?playouts=0", "playouts"),
        (f"search:{AGENT}?playouts=nan", "playouts"),
        (f"search:{AGENT}?time=inf", "time"),
        (f"search:{AGENT}?depth=3", "unknown search option"),
        (f"search:{AGENT}?playouts=4&playouts=5", "given twice"),
        (f"search:{AGENT}?greedy=yes", "0 or 1"),
        (f"search:{AGENT}?playouts=٤", "playouts"),
        ("search:no/such/file.pt", "no such network file"),
        (f"search:{ROOT / 'README.md'}", ".pt"),
    ],
)
def test_bad_search_specs_are_refused_with_a_message(spec: str, message: str) -> None:
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        check_spec(spec)


def test_split_spec_reads_every_option() -> None:
    path, params = split_spec("search:a.pt?playouts=32&time=0.25&c_puct=2&greedy=0&reuse_tree=0")
    assert path == "a.pt"
    assert params == SearchParams(playouts=32, time=0.25, c_puct=2.0, greedy=False, reuse_tree=False)


def test_all_viewers_values_each_rival_from_its_own_view() -> None:
    """all_viewers=1: the rivals' entries come from their own encodings of the position, centred to sum 0."""

    class RowEvaluator(UniformEvaluator):
        def __call__(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            logp, _ = super().__call__(obs, mask)
            self.viewer_rows = obs[-2:].copy()
            return logp, np.arange(len(obs), dtype=np.float64)  # row i is valued i

    game = Game.new(SMALL)
    for all_viewers, expected_rows in ((False, None), (True, 2)):
        evaluator = RowEvaluator()
        seat = SearchPolicy(evaluator, SearchParams(playouts=1, all_viewers=all_viewers))
        seat.act(game, 0)
        root = Node(game.copy(), 0)
        value = seat._expand(root)
        assert abs(value.sum()) < 1e-12
        if expected_rows is None:
            assert value[1] == value[2] == -value[0] / 2  # the acting player's value, split between rivals
        else:
            # rows: phase 1, one per movable piece, then Green's and Red's views (valued by their row index)
            assert value[1] < value[2]
            assert not np.array_equal(evaluator.viewer_rows[0], evaluator.viewer_rows[1])
