"""A checkpoint's claimed network is compared with its saved tensors before it is built (issue 45, finding 7).

A 23 KB file claiming 1024 channels used to build that network (15.7 s, 3.7 GB) before its shapes were compared.
Now the claimed network is first made with its weights on torch's ``meta`` device (shapes only); the tests record
the device of every network made and require that a refused file made none with real weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from policies import checkpoint, games  # noqa: E402
from policies.board_network import BoardPolicyNet  # noqa: E402
from policies.domain_wheel.network import HexPolicyNet  # noqa: E402
from tests.test_train_checkpoint import HP, _payload  # noqa: E402


def _record_devices(monkeypatch: pytest.MonkeyPatch, cls: type) -> list[set[str]]:
    """Return a list that gets, for every ``cls`` network made, the devices its weights are on."""
    made: list[set[str]] = []
    init = cls.__init__

    def recording(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append({p.device.type for p in self.parameters()})

    monkeypatch.setattr(cls, "__init__", recording)
    return made


def test_a_file_claiming_1024_channels_is_refused_before_a_real_network_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    payload = _payload(network={**HP, "channels": 1024})  # weights of 8 channels, a claim of 1024
    made = _record_devices(monkeypatch, HexPolicyNet)
    with pytest.raises(checkpoint.CheckpointError, match=r"cell_in.weight \(8, 15\) \(needs \(1024, 15\)\)"):
        checkpoint.build_network(payload, "claims.pt")
    assert made == [{"meta"}]


def test_a_fitting_file_builds_a_real_network_with_its_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = _payload()
    made = _record_devices(monkeypatch, HexPolicyNet)
    net = checkpoint.build_network(payload, "fits.pt")
    assert made == [{"meta"}, {"cpu"}]
    for name, tensor in net.state_dict().items():
        assert torch.equal(tensor, payload["model"][name])


@pytest.mark.parametrize("game_id", ["alveole", "conquer"])
def test_a_board_game_file_claiming_a_big_network_is_refused_on_meta(
    monkeypatch: pytest.MonkeyPatch, game_id: str, tmp_path: Path
) -> None:
    adapter = games.get(game_id)
    options = adapter.default_options()
    size = {"channels": 8, "cell_layers": 1, "land_layers": 0, "head_hidden": 8}
    small = adapter.make_network(options, size)
    payload = {
        **_payload(),
        "game": game_id,
        "observation_version": adapter.observation_version(),
        "options": adapter.options_to_dict(options),
        "network": {**size, "channels": 1024, "turn_trunk": 0},
        "model": small.state_dict(),
    }
    made = _record_devices(monkeypatch, BoardPolicyNet)
    with pytest.raises(checkpoint.CheckpointError, match="do not fit the network"):
        checkpoint.build_network(payload, tmp_path / "claims.pt")
    assert made == [{"meta"}]
