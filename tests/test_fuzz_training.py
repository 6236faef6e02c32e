"""Fuzzing the training side's loaders (issue 8): random and mutated configs, policy files and training states.

Whatever they are fed, the config loader, the checkpoint loader, the resume restore and the ``dw train`` /
``dw arena`` entry points answer with a result or one clear error (ConfigError, CheckpointError: a
ValueError the CLI prints as one line, exit status 2): never a traceback, never a hang, and on error nothing
they were given or were to restore into has changed. Bounded for CI: a few seconds per test.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
pytest.importorskip("tensorboard")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dw_cli.main import main  # noqa: E402
from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies import checkpoint  # noqa: E402
from policies.domain_wheel import network_policy  # noqa: E402
from policies.domain_wheel.network import HexPolicyNet  # noqa: E402
from training.ppo import config as cfg  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "smoke.yaml"
FAST = settings(
    max_examples=40,
    deadline=None,  # no wall-clock limit: a loaded machine must not fail it
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)

# ---- values and mutations -----------------------------------------------------------------------------
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.binary(max_size=20),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
tensors = st.builds(
    lambda shape, dtype: torch.zeros(shape, dtype=dtype),
    st.lists(st.integers(0, 4), max_size=3),
    st.sampled_from([torch.float32, torch.float64, torch.int64, torch.int8, torch.bool, torch.uint8, torch.bfloat16]),
)


def _paths(node: Any, prefix: tuple[Any, ...] = (), depth: int = 6) -> list[tuple[Any, ...]]:
    """Return the paths to every entry of a nested mapping/list (JSON text is walked into as well)."""
    out = [prefix] if prefix else []
    if depth == 0:
        return out
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key), depth - 1)
    elif isinstance(node, list) and node:
        for i in sorted({0, len(node) - 1}):
            out += _paths(node[i], (*prefix, i), depth - 1)
    elif isinstance(node, str) and node[:1] in "[{":
        with contextlib.suppress(ValueError):
            out += _paths(json.loads(node), (*prefix, "<json>"), depth - 1)
    return out


def _mutate(node: Any, path: tuple[Any, ...], new: Any) -> Any:
    """Return ``node`` with the entry at ``path`` replaced by ``new`` (deleted when ``new`` is ``DELETE``)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if head == "<json>":
        return json.dumps(_mutate(json.loads(node), rest, new), default=repr)
    node = copy.copy(node)
    if not rest and new is DELETE:
        del node[head]
    else:
        node[head] = _mutate(node[head], rest, new)
    return node


DELETE = object()
replacements = st.one_of(values, tensors, st.just(DELETE))


# ---- configs ------------------------------------------------------------------------------------------
BASE = cfg.TrainConfig().to_dict()
CONFIG_PATHS = _paths(BASE)


@FAST
@given(
    st.sampled_from(CONFIG_PATHS),
    st.one_of(values, st.just(DELETE)),
    st.dictionaries(st.text(max_size=6), values, max_size=2),
)
def test_mutated_config_mappings_give_a_config_or_a_config_error(path: tuple[Any, ...], new: Any, extra: Any) -> None:
    data = _mutate(BASE, path, new)
    data = {**data, **extra} if isinstance(data, dict) else data
    before = repr(data)
    try:
        config = cfg.from_dict(data)
    except cfg.ConfigError as exc:
        assert 0 < len(str(exc)) < 2000
    else:
        assert isinstance(config.options, GameOptions)
    assert repr(data) == before  # the input is not changed


yaml_text = st.one_of(
    st.text(max_size=200),
    st.builds(
        lambda text, at, insert: text[:at] + insert + text[at:],
        st.just(SMOKE.read_text()),
        st.integers(0, len(SMOKE.read_text())),
        st.sampled_from(
            [
                "&a ",
                "*a",
                ": ",
                "\n  x: 1\n",
                "- ",
                "{",
                "]",
                ".nan",
                "1e999",
                "!!python/object:os.system ",
                "\t",
                "run:\n",
            ]
        ),
    ),
)


@FAST
@given(yaml_text)
def test_random_yaml_text_gives_a_config_or_a_config_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass") if "\ud800" not in text else None
    if not path.exists():
        return
    try:
        cfg.load(path)
    except cfg.ConfigError as exc:
        assert 0 < len(str(exc)) < 2000


@FAST
@given(
    yaml_text,
    st.lists(st.sampled_from(["ppo.gamma=.nan", "run.name=../x", "league.weights.x=1", "game=", "a"]), max_size=2),
)
def test_dw_train_cli_never_raises_on_bad_configs(tmp_path: Path, text: str, overrides: list[str]) -> None:
    path = tmp_path / "fuzz.yaml"
    try:
        path.write_text(text, encoding="utf-8")
    except UnicodeEncodeError:
        return
    started: list[Any] = []
    with pytest.MonkeyPatch.context() as mp:
        import training.ppo.ppo

        mp.setattr(training.ppo.ppo, "train", lambda config, **kw: started.append(config) or _fake_result(kw))
        argv = ["train", "--config", str(path), "--run-dir", str(tmp_path / "run")]
        for o in overrides:
            argv += ["--set", o]
        code = main(argv)
    assert code in (0, 2)
    assert (code == 0) == bool(started)
    assert code == 0 or not (tmp_path / "run").exists()  # a refused config writes nothing
    assert all(isinstance(c, cfg.TrainConfig) for c in started)


def _fake_result(kw: dict[str, Any]) -> dict[str, Any]:
    counters = {"env_steps": 0, "updates": 0, "games": 0, "decisions": 0, "seconds": 0.0}
    return {
        "counters": counters,
        "run_dir": kw.get("run_dir"),
        "results": [],
        "table": "",
        "interrupted": "",
        "exit_code": 0,
    }


# ---- policy files -------------------------------------------------------------------------------------
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=20)
HP = {"channels": 8, "cell_layers": 1, "land_layers": 1, "head_hidden": 8}


def _policy_payload() -> dict[str, Any]:
    torch.manual_seed(0)
    net = HexPolicyNet(build_geometry(1, 2), **HP)
    return {
        "format": checkpoint.FORMAT,
        "format_version": checkpoint.FORMAT_VERSION,
        "observation_version": net.observation_version,
        "options": SMALL.to_dict(),
        "network": dict(HP),
        "model": net.state_dict(),
        "config": {},
        "counters": {"env_steps": 0},
    }


POLICY = _policy_payload()
POLICY_PATHS = [p for p in _paths(POLICY, depth=2)]


@FAST
@given(st.sampled_from(POLICY_PATHS), replacements)
def test_mutated_policy_files_load_or_give_a_checkpoint_error(tmp_path: Path, path: tuple[Any, ...], new: Any) -> None:
    file = tmp_path / "p.pt"
    torch.save(_mutate(POLICY, path, new), file)
    try:
        policy = network_policy.load(file)
    except checkpoint.CheckpointError as exc:
        assert 0 < len(str(exc)) < 2000
    else:
        assert policy.net is not None


# no deadline: the first game compiles the arena's kernels; the examples after it take a fraction of a second
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture], derandomize=True)
@given(st.sampled_from(POLICY_PATHS), replacements)
def test_dw_arena_cli_never_raises_on_bad_policy_files(tmp_path: Path, path: tuple[Any, ...], new: Any) -> None:
    file = tmp_path / "p.pt"
    torch.save(_mutate(POLICY, path, new), file)
    argv = ["arena", "--lineup", f"{file},random,random", "--games", "1", "--workers", "1", "--no-progress"]
    argv += ["--land-radius", "1", "--map-radius", "2", "--max-rounds", "10"]
    assert main(argv) in (0, 2)


# ---- training state -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A smoke session after one rollout and update: the state a checkpoint holds, and the objects it fills."""
    from training.ppo.ppo import collect_rollout, ppo_update, start_session
    from training.ppo.resume import training_state

    config = cfg.load(SMOKE, ["imitation.teacher=none", "eval.final_games=0"])
    s = start_session(config, None, tmp_path_factory.mktemp("fuzz") / "run")
    collect_rollout(s.table, s.rollout, s.net, s.frozen, config.env.num_steps, s.ctx)
    ppo_update(s.net, s.optimizer, s.rollout, config, s.ctx)
    s.rollout.carry_over()
    s.table.league.snapshot(1, s.net.state_dict())
    s.writer.close()
    s.state = training_state(s.table, s.rollout, s.optimizer, s.ctx["rng"])
    return s


def _fingerprint(s: Any) -> str:
    """Return a digest of everything restore_training may change."""
    from training.ppo.resume import training_state

    state = training_state(s.table, s.rollout, s.optimizer, s.ctx["rng"])
    h = hashlib.sha256()

    def feed(node: Any) -> None:
        if isinstance(node, torch.Tensor):
            h.update(
                node.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes() if node.numel() else b""
            )
            h.update(str((node.dtype, tuple(node.shape))).encode())
        elif isinstance(node, dict):
            for k in node:
                h.update(repr(k).encode())
                feed(node[k])
        elif isinstance(node, (list, tuple)):
            for v in node:
                feed(v)
        else:
            h.update(repr(node).encode())

    feed(state)
    h.update(np.asarray(s.table.scripted.pending).tobytes())
    return h.hexdigest()


STATE_PATHS: list[tuple[Any, ...]] = []


def _state_paths(s: Any) -> list[tuple[Any, ...]]:
    if not STATE_PATHS:
        STATE_PATHS.extend(_paths(s.state))
    return STATE_PATHS


@FAST
@given(st.data())
def test_mutated_training_state_restores_or_changes_nothing(session: Any, data: Any) -> None:
    from policies.checkpoint import CheckpointError
    from training.ppo.resume import restore_training

    path = data.draw(st.sampled_from(_state_paths(session)))
    new = data.draw(replacements)
    state = _mutate(session.state, path, new)
    python_random = random.getstate()  # hypothesis reseeds Python's random for every example
    before = _fingerprint(session)
    try:
        restore_training(
            state, session.table, session.rollout, session.optimizer, session.ctx["rng"], session.net, "x.pt"
        )
    except CheckpointError as exc:
        assert str(exc).startswith("x.pt: ") and len(str(exc)) < 2000
        assert _fingerprint(session) == before  # nothing changed
    else:  # a harmless change (an equal value): put the original back for the next example
        restore_training(
            session.state, session.table, session.rollout, session.optimizer, session.ctx["rng"], session.net, "x.pt"
        )
        random.setstate(python_random)
        assert _fingerprint(session) == before
