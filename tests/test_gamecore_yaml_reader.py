"""gamecore.loaders.read_yaml refuses text its YAML reader cannot take (control characters) with the caller's
error, like any other invalid YAML: the reader checks them when the loader is built, before parsing."""

from __future__ import annotations

import pytest

from gamecore.loaders import read_yaml


class Bad(ValueError):
    pass


@pytest.mark.parametrize("text", ["\x1f", "name: a\x00b\n", "seed: 1\n\x07"])
def test_control_characters_are_the_callers_error(text: str) -> None:
    with pytest.raises(Bad, match=r"^spec\.yaml: not valid YAML \(unacceptable character"):
        read_yaml(text, "spec.yaml", Bad)
