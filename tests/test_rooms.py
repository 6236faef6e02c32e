"""The code's rooms import one way: the command line on top, then training, then policies, then dw_env.

Inside ``training`` the sub-packages import one way too (:data:`TRAINING_FLOORS`).

Every ``import`` statement is read from the sources (module level, inside functions and under
``TYPE_CHECKING`` alike), so a lazy import that reaches up is caught as well as a top-level one. Modules
inside one room must not import each other in a circle either.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: each room's floor, from the bottom up; a room may import only rooms on lower floors (and itself).
#: ``gamecore`` (the shared room beneath the engines) imports none of them.
#: ``play`` (the browser game's server) sits beside ``training``: neither imports the other.
FLOORS = {
    "gamecore": -1,
    "dw_env": 0,
    "alveole_env": 0,
    "conquer_env": 0,
    "frontera_env": 0,
    "policies": 1,
    "training": 2,
    "play": 2,
    "dw_cli": 3,
}
ROOMS = tuple(room for room in FLOORS if (ROOT / room).is_dir())


def _imports(path: Path) -> set[str]:
    """Return the absolute module names imported anywhere in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources(room: str) -> list[Path]:
    return sorted((ROOT / room).rglob("*.py"))


@pytest.mark.parametrize("room", ROOMS)
def test_room_imports_nothing_above_it(room: str) -> None:
    above = {other for other, floor in FLOORS.items() if other != room and floor >= FLOORS[room]}
    offenders = []
    for path in _sources(room):
        for name in _imports(path):
            if name.split(".")[0] in above:
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not offenders, "lower room reaches up:\n" + "\n".join(sorted(set(offenders)))


def _graph(room: str) -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in _sources(room)}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(path):
            # "from training import checkpoint" names the module training.checkpoint
            if imported in modules and imported != name and not (ROOT / imported.replace(".", "/")).is_dir():
                targets.add(imported)
        graph[name] = targets
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


#: training's sub-packages, from the bottom up (training/__init__.py's docstring): one imports only those on
#: lower floors, so the exporter, the designer studies and the trainer, side by side, import none of each other.
TRAINING_FLOORS = {"distributed": 0, "evaluation": 1, "export": 2, "studies": 2, "ppo": 2, "search_guided": 2}


def _upward(floors: dict[str, int], room: str, sub: str, imported: str) -> bool:
    """Return whether ``imported`` names a sub-package of ``room`` that ``sub`` may not import (same floor or above)."""
    parts = imported.split(".")
    if parts[0] != room or len(parts) < 2 or parts[1] not in floors or parts[1] == sub:
        return False
    return floors[parts[1]] >= floors[sub]


def test_training_is_all_sub_packages_each_with_a_floor() -> None:
    """No module sits loose at the top of training/, and every sub-package has its floor."""
    loose = sorted(p.name for p in (ROOT / "training").glob("*.py") if p.name != "__init__.py")
    subs = sorted(p.name for p in (ROOT / "training").iterdir() if (p / "__init__.py").is_file())
    assert not loose, f"modules outside a sub-package: {loose}"
    assert subs == sorted(TRAINING_FLOORS)


@pytest.mark.parametrize("sub", sorted(TRAINING_FLOORS))
def test_training_sub_package_imports_only_lower_floors(sub: str) -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / "training" / sub).rglob("*.py"))
        for name in _imports(path)
        if _upward(TRAINING_FLOORS, "training", sub, name)
    ]
    assert not offenders, "training sub-package reaches sideways or up:\n" + "\n".join(sorted(set(offenders)))


def test_the_floor_check_sees_a_sideways_and_an_upward_import() -> None:
    """The trainer may use the arena; the arena may not use the trainer, nor the exporter the trainer."""
    assert not _upward(TRAINING_FLOORS, "training", "ppo", "training.evaluation.arena")
    assert not _upward(TRAINING_FLOORS, "training", "ppo", "training.ppo.league")
    assert _upward(TRAINING_FLOORS, "training", "evaluation", "training.ppo.league")
    assert _upward(TRAINING_FLOORS, "training", "export", "training.ppo.config.TrainConfig")
    assert _upward(TRAINING_FLOORS, "training", "distributed", "training.evaluation")


#: the policies modules every game shares (issue 47 item 1): they know no game, so they import no engine
#: (each game's half lives in its folder, e.g. policies/domain_wheel/search.py and package_seat.py)
GAMELESS_POLICIES = (
    "onnx_graph.py",
    "search_spec.py",
    "puct.py",
    "package.py",
    "board_onnx_policy.py",
    "board_search.py",
    "package_evaluator.py",
)
ENGINES = tuple(room for room, floor in FLOORS.items() if floor == 0)


@pytest.mark.parametrize("name", GAMELESS_POLICIES)
def test_shared_policies_modules_import_no_engine(name: str) -> None:
    found = sorted(n for n in _imports(ROOT / "policies" / name) if n.split(".")[0] in ENGINES)
    assert not found, f"policies/{name} is every game's, yet imports {found}"


def test_the_engine_check_sees_a_game_import(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from dw_env.engine import Game\n", encoding="utf-8")
    assert any(n.split(".")[0] in ENGINES for n in _imports(source))


@pytest.mark.parametrize("room", ROOMS)
def test_no_import_cycle_inside_a_room(room: str) -> None:
    cycle = _cycle(_graph(room))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checks_see_a_cycle_and_an_upward_import(tmp_path: Path) -> None:
    """The scanner itself: a made-up pair of modules importing each other is a cycle."""
    graph = {"a.x": {"a.y"}, "a.y": {"a.x"}, "a.z": set()}
    assert _cycle(graph) == ["a.x", "a.y", "a.x"]
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from training.ppo.ppo import train\n", encoding="utf-8")
    assert "training.ppo.ppo" in _imports(source)


def test_no_working_notes_in_the_repository() -> None:
    """Notes for helpers about a checkout are not part of the product."""
    assert not (ROOT / "notes").exists()
