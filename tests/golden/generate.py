"""Write the golden fixtures of the observation encoder and the shipped agent: ``python tests/golden/generate.py``.

Each fixture is one position as seen by one viewer in one phase: the position JSON (dw_env/position.py), the
expected observation (``dw-obs-v1``: its non-zero bytes and the SHA-256 of all of them), the action mask
and the greedy action of the exported agent ``checkpoints/small-agent``. A port of the encoder (C#,
JavaScript) checks its bytes against these, and its onnxruntime call against the action; see
docs/OBSERVATION.md. ``tests/test_export_golden.py`` keeps the files true. Run this only after a deliberate
change of the layout or the agent, and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PACKAGE = ROOT / "checkpoints" / "small-agent"


def fixture(game: Any, viewer: int, selected: int, name: str, source: str, package: Any = None) -> dict[str, Any]:
    """Return the fixture of ``game`` seen by ``viewer`` (phase 2 when ``selected`` >= 0)."""
    from dw_env import position
    from dw_env.envs.observation import OBSERVATION_VERSION
    from dw_env.info import PLAYER_NAMES
    from policies.domain_wheel.two_phase import TwoPhaseDriver

    driver = TwoPhaseDriver(game.options)
    obs, mask = driver.encode(game, viewer, selected)
    obs, mask = obs.copy(), mask.copy()
    g = driver.geometry
    entry: dict[str, Any] = {
        "name": name,
        "source": source,
        "position": position.to_dict(game),
        "viewer": PLAYER_NAMES[viewer],
        "phase": 2 if selected >= 0 else 1,
        "selected": None if selected < 0 else list(map(int, g.cell_coord(selected))),
        "observation_version": OBSERVATION_VERSION,
        "observation": {
            "size": int(obs.size),
            "sha256": hashlib.sha256(obs.tobytes()).hexdigest(),
            "nonzero": [[int(i), int(obs[i])] for i in obs.nonzero()[0]],
        },
        "mask": "".join(str(int(v)) for v in mask),
        "legal_actions": [int(i) for i in mask.nonzero()[0]],
    }
    if package is not None:
        entry["package"] = "checkpoints/small-agent"
        entry["action"] = agent_action(package, game.options, obs, mask)
    return entry


def agent_action(package: Any, options: Any, obs: Any, mask: Any) -> int:
    """Return the package's greedy action for one observation on ``options``' map."""
    from policies.domain_wheel.two_phase import map_key
    from policies.onnx_policy import OnnxGraph

    action, _ = OnnxGraph(package, package.graph_for(map_key(options))).run(obs[None], mask[None])
    return int(action[0])


def scenario_piece(data: dict[str, Any]) -> list[int] | None:
    """Return the piece a tutorial scenario moves or asks about first, or None."""
    for action in data["actions"]:
        if "move" in action:
            return list(action["move"][0])
        dest = action.get("expect", {}).get("destinations")
        if dest:
            return list((dest[0] if isinstance(dest, list) else dest)["from"])
    return None


def tutorial(package: Any) -> list[dict[str, Any]]:
    from dw_env import position

    out = []
    for path in sorted((ROOT / "tests" / "scenarios").glob("paso_*.json")):
        data = json.loads(path.read_text())
        game = position.from_dict(data["position"])
        source = f"tests/scenarios/{path.name}"
        stem = path.stem
        first = fixture(game, game.turn, -1, f"{stem}-phase1", source, package)
        out.append(first)
        piece = scenario_piece(data)
        c = game.geometry.num_cells
        if piece is None and first["action"] < c:
            from policies.domain_wheel.two_phase import TwoPhaseDriver

            src = TwoPhaseDriver(game.options).cell_of(game.turn, first["action"])
        elif piece is not None:
            src = game.geometry.cell_index(*piece)
        else:
            continue
        if src in game.movable_pieces():
            out.append(fixture(game, game.turn, src, f"{stem}-phase2", source, package))
    return out


def arena_game(package: Any) -> list[dict[str, Any]]:
    """Fixtures from one seeded small-map game: both phases, a viewer not to act and the final position."""
    from dw_env.engine import Game
    from dw_env.options import GameOptions
    from policies.registry import make

    options = GameOptions(land_radius=1, map_radius=2, max_rounds=150)
    game = Game.new(options)
    seats = [make(n, seed=i) for i, n in enumerate(("balanced", "raider", "expansionist"))]
    out, ply = [], 0
    source = "a seeded small-map game: balanced, raider, expansionist (seeds 0, 1, 2)"
    while not game.over:
        move = seats[game.turn].act(game, game.turn)
        if ply in (0, 7, 20, 41):
            out.append(fixture(game, game.turn, -1, f"small-ply{ply:03d}-phase1", source, package))
            if move.src >= 0:
                out.append(fixture(game, game.turn, move.src, f"small-ply{ply:03d}-phase2", source, package))
            other = (game.turn + 1) % 3
            out.append(fixture(game, other, -1, f"small-ply{ply:03d}-not-to-act", source))
        game.play(move)
        ply += 1
    out.append(fixture(game, 0, -1, "small-game-over", source))
    return out


def dumps(entry: dict[str, Any]) -> str:
    """Return a fixture as JSON text: one key per line, each value on one line (diffs stay readable)."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in entry.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from policies.package import read_package

    package = read_package(sys.argv[1] if len(sys.argv) > 1 else PACKAGE)
    for old in HERE.glob("*.json"):
        old.unlink()
    fixtures = tutorial(package) + arena_game(package)
    for i, entry in enumerate(fixtures):
        (HERE / f"{i:02d}_{entry['name']}.json").write_text(dumps(entry))
    print(f"wrote {len(fixtures)} fixtures to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
