"""Frontera's part of ``dw export``: one graph per map, each checked against torch before the package is installed.

:class:`policies.frontera.network.FronteraGraphNet` has one set of weights for every map and 2 to 6 players,
but the map's tables (edges in action order, regions, bonuses) are buffers that ``set_map`` swaps, and the
observation's and the action's sizes follow the map. The package format (:mod:`policies.package`, version 1)
gives a graph one dynamic axis (the batch) and two inputs (observation, mask), so each graph bakes in one
map: ``model.onnx`` the trained map, ``model-{size}.onnx`` the other reference maps (all three are always in),
``model-{digest}.onnx`` each ``--map FILE.json``. A graph accepts its map's key
(:func:`policies.frontera.package_seat.map_key`); the number of players, fog, cards and the turn limit are
observation features, so any graph plays any of them.

Parity (:func:`parity_report`) runs at every export: positions from random play on every map of the package
with 2, 3, 4 and 6 players, fog off and on, through the env's own observation (the one the seat builds);
the export stops, installing nothing, if a legal logit differs by more than :data:`TOLERANCE` or a greedy
action differs where torch's best two legal logits are further apart than it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from frontera_env.board import SIZES
from policies.frontera.package_seat import ACTION_VERSION, GAME, RULES_VERSION, map_key, map_text
from policies.package import MAIN_GRAPH

#: the largest |logit difference| on a legal action between onnxruntime and torch that an export accepts
TOLERANCE: Final = 1e-4
#: player counts and fog settings every map's parity covers
PARITY_PLAYERS: Final = (2, 3, 4, 6)
PARITY_FOG: Final = (False, True)
#: positions per (map, players, fog) when ``--parity`` is not given
DEFAULT_PER_CASE: Final = 4
#: random actions between two recorded positions (so that they spread over the game's phases)
STRIDE: Final = 5


class ParityError(ValueError):
    """An exported graph that does not play as the checkpoint does (above :data:`TOLERANCE`)."""


class FronteraTarget:
    """What Frontera's export differs in: FronteraGraphNet, one graph per map (``--map FILE.json``), its parity."""

    #: parity runs at every export (``--parity N`` sets the positions; 0: :data:`DEFAULT_PER_CASE` per case)
    always_parity = True

    def __init__(self, request: Any, payload: dict[str, Any]) -> None:
        from policies import checkpoint, games
        from policies.games.frontera import load_map

        if request.grids or request.maps:
            raise ValueError(
                "--grid WxH and --map N,R are the other games'; Frontera's graphs are one per map: give --map "
                f"{'|'.join(SIZES)} or --map FILE.json (frontera-map/1); the three reference maps are always in"
            )
        self.request, self.payload = request, payload
        self.net = checkpoint.build_network(payload, request.checkpoint).eval()
        self.trained = checkpoint.saved_options(payload, request.checkpoint)
        self.game = games.get(GAME).for_options(self.trained)
        names = [self.trained.map, *SIZES, *request.map_names]
        self.variants: list[Any] = []  # (map name, FronteraMap): the trained map first, one per map key
        keys: list[dict[str, int]] = []
        for name in names:
            try:
                board = load_map(name)
            except (OSError, ValueError) as exc:
                raise ValueError(f"--map {name}: not a Frontera map ({exc})") from None
            if map_key(board) not in keys:
                keys.append(map_key(board))
                self.variants.append((name, board))

    def manifest(self, checkpoint_bytes: bytes) -> dict[str, Any]:
        from frontera_env.observation import GLOBALS
        from training.export.export import package_manifest

        trained = self.game.options_to_dict(self.trained)
        game = {
            "name": GAME,
            "rules_version": RULES_VERSION,
            "trained_options": trained,
            "accepts_options": (
                "one graph per map (graphs[].accepts: territories, edges and a digest of the map's graph); "
                "any players (2..6), fog, cards and max_turns (observation features; the agent was trained on "
                "trained_options)"
            ),
        }
        observation = {
            "version": self.game.observation_version(),
            "dtype": "int8",
            "blocks": {
                "doc": (
                    "docs/FRONTERA.md 'Observation' (spec 6.4) of the acting seat's own view, every value v packed "
                    "as min(127, round(12 * log2(1 + v))) (policies/frontera/inputs.py): N territory rows of "
                    f"19 + R features (R = max(9, regions)), then {GLOBALS} globals; sizes per graph"
                ),
            },
        }
        action = {
            "version": ACTION_VERSION,
            "description": (
                "spec 6.2 (frontera_env.encoding, 5 amount buckets): DEPLOY(t, b), TRADE(13), ATTACK(e), BLITZ(e), "
                "OCCUPY(b) and KEEP, END_ATTACK, REGROUP_FROM(t), REGROUP_TO(t), REGROUP_AMOUNT(b), END_TURN; "
                "a regroup is three decisions (the seat keeps the selection between them)"
            ),
        }
        title = self.game.describe_options(trained)
        return package_manifest(
            self.request, self.payload, checkpoint_bytes, "Frontera", title, game, observation, action
        )

    def graph(self, variant: Any, manifest: dict[str, Any]) -> tuple[str, bytes, dict[str, Any]]:
        from policies.frontera.inputs import MapGraph
        from training.export.export import flavour_graph

        name, board = variant
        if self.request.flavour != "plain":
            raise ValueError("Frontera's package is exported in the plain flavour only (a regroup takes three calls)")
        graph = MapGraph.of_map(board)
        self.net.set_map(graph)
        key = map_key(board)
        data, entry = flavour_graph(
            self.net, graph.n * graph.row + _globals(), self.net.num_actions, key, "plain", manifest
        )
        return _file(name, key, self.variants[0][0] == name), data, entry

    def parity(self, stage: Path) -> dict[str, Any]:
        count = self.request.parity or DEFAULT_PER_CASE * len(PARITY_PLAYERS) * len(PARITY_FOG) * len(self.variants)
        report = parity_report(self.net, self.variants, stage, count, seed=self.request.seed)
        check_parity(report)
        return report

    def strength(self, stage: Path) -> dict[str, Any]:
        from training.export.export_strength import measure_strength

        r = self.request
        return measure_strength(stage, self.trained, r.measure, r.workers, r.seed, r.progress, game=self.game)


def _globals() -> int:
    from frontera_env.observation import GLOBALS

    return int(GLOBALS)


def _file(name: str, key: dict[str, int], trained: bool) -> str:
    if trained:
        return MAIN_GRAPH
    return f"model-{name}.onnx" if name in SIZES else f"model-{key['map_digest']:012x}.onnx"


def random_positions(
    map_name: str, players: int, fog: bool, count: int, seed: int
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Return (packed observations [count, D], masks [count, A]) from random play on a map: every seat's own.

    Games of random legal indices through the env (its regroup selections included), one position every
    :data:`STRIDE` actions; a finished game is followed by a fresh one.
    """
    from frontera_env import frontera_v0
    from policies.frontera.inputs import pack

    where = {"size": map_name} if map_name in SIZES else {"map_file": map_name}
    env = frontera_v0.raw_env(players=players, fog=fog, max_turns=40 * players, **where)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    obs, masks = [], []
    step = 0
    while len(obs) < count:
        who = env.agent_selection
        if env.terminations[who] or env.truncations[who]:
            env.reset(seed=int(rng.integers(2**31)))
            continue
        seen = env.observe(who)
        if step % STRIDE == 0:
            obs.append(pack(seen["observation"]))
            masks.append(np.asarray(seen["action_mask"], np.int8))
        env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
        step += 1
    return np.stack(obs), np.stack(masks)


def compare(net: Any, graph: Any, obs: NDArray[Any], masks: NDArray[Any]) -> dict[str, Any]:
    """Return {positions, agree, near_ties, max_abs_logit_diff, max_abs_value_diff} of torch vs onnxruntime.

    ``agree`` counts identical greedy actions over the legal ones; ``near_ties`` the positions whose two best
    legal torch logits are within :data:`TOLERANCE` (there either action is the same play, and a disagreement
    is rounding, not a fault).
    """
    import torch

    with torch.no_grad():
        logits, values = (t.numpy() for t in net(torch.from_numpy(obs)))
    legal = masks != 0
    want = np.where(legal, logits, -np.inf).argmax(1)
    got, onnx_logits = graph.run(obs, masks)
    _, onnx_values = graph.evaluate(obs, masks)
    top2 = np.sort(np.where(legal, logits, -np.inf), 1)[:, -2:]
    near = (top2[:, 1] - top2[:, 0]) <= TOLERANCE
    return {
        "positions": len(obs),
        "agree": int((got == want).sum()),
        "near_ties": int(near.sum()),
        "disagree_apart": int(((got != want) & ~near).sum()),
        "max_abs_logit_diff": float(np.abs(np.where(legal, onnx_logits - logits, 0.0)).max()),
        "max_abs_value_diff": float(np.abs(onnx_values - values).max()),
    }


def parity_report(net: Any, variants: list[Any], package: Path, count: int, seed: int = 0) -> dict[str, Any]:
    """Return the parity of ``package`` with ``net`` on every map of ``variants`` ((name, board) pairs).

    The ``count`` positions are spread evenly over every map, player count (:data:`PARITY_PLAYERS`) and fog
    setting (:data:`PARITY_FOG`).
    """
    from policies.frontera.inputs import MapGraph
    from policies.onnx_graph import OnnxGraph
    from policies.package import read_package

    pkg = read_package(package)
    cases = len(variants) * len(PARITY_PLAYERS) * len(PARITY_FOG)
    share = max(1, -(-count // cases))
    rows = []
    for m, (name, board) in enumerate(variants):
        net.set_map(MapGraph.of_map(board))
        graph = OnnxGraph(pkg, pkg.graph_for(map_key(board)))
        for players in PARITY_PLAYERS:
            for fog in PARITY_FOG:
                case_seed = seed * 1_000_003 + 100 * m + 10 * players + int(fog)
                obs, masks = random_positions(name, players, fog, share, case_seed)
                row = compare(net, graph, obs, masks)
                rows.append({"map": map_text(map_key(board)), "players": players, "fog": fog, **row})
    return {
        "positions": sum(r["positions"] for r in rows),
        "agree": sum(r["agree"] for r in rows),
        "near_ties": sum(r["near_ties"] for r in rows),
        "disagree_apart": sum(r["disagree_apart"] for r in rows),
        "max_abs_logit_diff": max(r["max_abs_logit_diff"] for r in rows),
        "max_abs_value_diff": max(r["max_abs_value_diff"] for r in rows),
        "tolerance": TOLERANCE,
        "source": "random play through the env, every map x players 2, 3, 4, 6 x fog off/on, the seat's own view",
        "seed": seed,
        "cases": rows,
    }


def check_parity(report: dict[str, Any]) -> None:
    """Raise ParityError naming the worst case if the package does not play as the checkpoint (:data:`TOLERANCE`)."""
    worst = max(report["cases"], key=lambda r: (r["disagree_apart"], r["max_abs_logit_diff"]))
    if worst["disagree_apart"] or worst["max_abs_logit_diff"] > TOLERANCE:
        raise ParityError(
            f"the exported graph of {worst['map']} ({worst['players']} players, fog {'on' if worst['fog'] else 'off'}) "
            f"does not play as the checkpoint: max |logit difference| {worst['max_abs_logit_diff']:.3g} "
            f"(allowed: {TOLERANCE:g}), {worst['disagree_apart']} of {worst['positions']} greedy actions differ "
            "where torch's best two legal logits are further apart than that; nothing was installed"
        )
