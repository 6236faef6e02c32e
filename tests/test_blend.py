"""``dw blend`` (policies/blend.py): weights on the line between two checkpoints of one network.

The blend's weights are the straight line between the files' (exact at 0 and 1), the result is a policy file
that loads, plays in the arena and exports with the blend in its provenance; every bad input (a weight outside
0..1, two games, two network sizes, a missing or foreign file, an existing output) is refused with a message
naming it, and leaves no file behind or the existing one as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from dw_cli.main import main  # noqa: E402
from policies import checkpoint, games  # noqa: E402

SIZE = {"channels": 8, "cell_layers": 1, "land_layers": 0, "head_hidden": 16}
CONQUER = {"name": "conquer", "width": 7, "height": 7}


def _checkpoint(path: Path, game: dict[str, Any], seed: int, size: dict[str, int] = SIZE) -> Path:
    """Write a ``dw train`` checkpoint (the trainer's writer and config) of a fresh network shaken by ``seed``."""
    from training.ppo.config import from_dict
    from training.ppo.resume import save_checkpoint

    config = from_dict({"game": game, "network": size, "eval": {"final_games": 0}})
    torch.manual_seed(seed)
    net = games.get(config.game_id).for_options(config.options).make_network(config.options, size)  # type: ignore[attr-defined]
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    save_checkpoint(path, net, config, {"env_steps": 4096 * seed, "updates": seed}, None)
    return path


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's refusals
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("blend")
    start = _checkpoint(root / "start.pt", CONQUER, 1)
    tuned = _checkpoint(root / "tuned.pt", CONQUER, 2)
    payload = checkpoint.load(tuned)  # a training checkpoint: its training state must not reach the blend
    payload["training"] = {"optimizer": {"step": 3}}
    checkpoint.save(tuned, payload)
    return {"root": root, "start": start, "tuned": tuned}


def test_the_blend_is_the_line_between_the_weights_exact_at_both_ends(pair: dict[str, Path]) -> None:
    start, tuned = checkpoint.load(pair["start"]), checkpoint.load(pair["tuned"])
    for w in (0.0, 0.3, 1.0):
        out = pair["root"] / f"blend-{w}.pt"
        code, printed, err = _run("blend", str(pair["start"]), str(pair["tuned"]), "--weight", str(w), "-o", str(out))
        assert code == 0, err
        assert f"wrote {out}" in printed and "conquer" in printed
        blended = checkpoint.load(out)
        assert set(blended["model"]) == set(tuned["model"])
        for name, y in tuned["model"].items():
            got, x = blended["model"][name], start["model"][name]
            assert got.dtype == y.dtype and got.shape == y.shape
            if w == 0.0:
                assert torch.equal(got, x), name
            elif w == 1.0 or not y.is_floating_point():
                assert torch.equal(got, y), name
            else:
                assert torch.allclose(got, 0.7 * x + 0.3 * y, atol=1e-6), name
                assert not torch.equal(got, x) and not torch.equal(got, y), name
    blended = checkpoint.load(pair["root"] / "blend-0.3.pt")
    assert "training" not in blended  # a policy file: no optimizer, RNG or league
    for key in ("options", "config", "counters", "network", "game"):
        assert blended[key] == tuned[key], key
    sha = {k: hashlib.sha256(pair[k].read_bytes()).hexdigest() for k in ("start", "tuned")}
    assert blended["blend"] == {
        "start": "start.pt",
        "start_sha256": sha["start"],
        "tuned": "tuned.pt",
        "tuned_sha256": sha["tuned"],
        "weight": 0.3,
    }


def test_a_blended_file_plays_in_the_arena_and_exports_with_the_blend_in_its_provenance(pair: dict[str, Path]) -> None:
    out = pair["root"] / "played.pt"
    assert _run("blend", str(pair["start"]), str(pair["tuned"]), "--weight", "0.5", "-o", str(out))[0] == 0
    code, printed, err = _run(
        "arena", "--game", "conquer", "--option", "size=7x7", "--lineup", f"{out},random", "--games", "2",
        "--workers", "1", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert "played.pt" in printed
    package = pair["root"] / "played-package"
    code, printed, err = _run("export", str(out), "-o", str(package), "--no-progress")
    assert code == 0, err
    manifest = json.loads((package / "strategy.json").read_text())
    blend = manifest["provenance"]["blend"]
    assert blend["weight"] == 0.5 and blend["start"] == "start.pt" and blend["tuned"] == "tuned.pt"


@pytest.mark.parametrize(
    ("weight", "shown"), [("1.5", "1.5"), ("-0.1", "-0.1"), ("nan", "nan"), ("inf", "inf"), ("half", "half")]
)
def test_a_weight_outside_zero_to_one_is_refused_and_writes_nothing(
    pair: dict[str, Path], weight: str, shown: str
) -> None:
    out = pair["root"] / f"bad-{shown}.pt"
    code, _, err = _run("blend", str(pair["start"]), str(pair["tuned"]), "--weight", weight, "-o", str(out))
    assert code == 2
    assert "--weight" in err and "0 to 1" in err and shown in err
    assert not out.exists()


def test_the_library_refuses_a_weight_that_is_not_a_number_in_zero_to_one() -> None:
    from policies.blend import check_weight

    assert check_weight(0) == 0.0 and check_weight(1) == 1.0 and check_weight(0.25) == 0.25
    for bad in (True, "0.5", None, float("nan"), 1.0001, -1e-9):
        with pytest.raises(ValueError, match="blend weight"):
            check_weight(bad)


def test_an_existing_output_is_kept_unless_forced(pair: dict[str, Path]) -> None:
    out = pair["root"] / "kept.pt"
    out.write_bytes(b"the user's file")
    code, _, err = _run("blend", str(pair["start"]), str(pair["tuned"]), "--weight", "0.5", "-o", str(out))
    assert code == 2 and "exists" in err and "--force" in err
    assert out.read_bytes() == b"the user's file"
    code, _, err = _run("blend", str(pair["start"]), str(pair["tuned"]), "--weight", "0.5", "-o", str(out), "--force")
    assert code == 0, err
    assert checkpoint.load(out)["blend"]["weight"] == 0.5


def test_files_that_do_not_blend_are_refused_naming_what_differs(pair: dict[str, Path]) -> None:
    root = pair["root"]
    other_game = _checkpoint(root / "alveole.pt", {"name": "alveole", "max_plies": 60}, 3)
    bigger = _checkpoint(root / "bigger.pt", CONQUER, 4, {**SIZE, "channels": 12})
    foreign = root / "foreign.pt"
    foreign.write_bytes(b"not a checkpoint at all")
    cases = [
        (other_game, "conquer", "alveole"),  # two games
        (bigger, "channels 8 and 12", "different sizes"),  # two networks
        (foreign, "foreign.pt", "not a readable checkpoint"),
        (root / "missing.pt", "missing.pt", "no such checkpoint"),
    ]
    for second, *words in cases:
        out = root / "refused.pt"
        code, _, err = _run("blend", str(pair["start"]), str(second), "--weight", "0.5", "-o", str(out))
        assert code == 2, err
        assert err.startswith("dw blend: error:") and "Traceback" not in err
        for word in words:
            assert word in err, (word, err)
        assert not out.exists()
    code, _, err = _run("blend", str(pair["start"]), str(pair["tuned"]), "--weight", "0.5", "-o", str(root / "x.onnx"))
    assert code == 2 and ".pt" in err and not (root / "x.onnx").exists()
    nowhere = root / "no" / "x.pt"
    code, _, err = _run("blend", str(pair["start"]), str(pair["tuned"]), "--weight", "0.5", "-o", str(nowhere))
    assert code == 2 and "no such folder" in err
