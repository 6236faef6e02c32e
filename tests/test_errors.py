"""Error messages quote received values briefly (dw_env/errors.py)."""

from __future__ import annotations

from dw_env.errors import MAX_QUOTED, brief


def test_short_values_are_quoted_whole() -> None:
    assert brief("blue") == "'blue'"
    assert brief([1, "blue"]) == "[1, 'blue']"


def test_huge_values_are_cut() -> None:
    assert len(brief("x" * 20_000_000)) <= MAX_QUOTED
    nested: list[object] = []
    for _ in range(10_000):
        nested = [nested]
    assert len(brief(nested)) <= MAX_QUOTED


def test_a_value_whose_repr_fails_is_named_by_type() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert brief(Broken()) == "<Broken>"


def test_option_and_player_errors_quote_values_briefly() -> None:
    import pytest

    from dw_env.info import player_index
    from dw_env.options import GameOptions

    for make in (
        lambda: GameOptions(land_radius="x" * 100_000),  # type: ignore[arg-type]
        lambda: GameOptions(fast_knights="y" * 100_000),  # type: ignore[arg-type]
        lambda: GameOptions.from_dict({"z" * 100_000: 1}),
        lambda: player_index("w" * 100_000),
    ):
        with pytest.raises(ValueError) as info:
            make()
        assert len(str(info.value)) < 300
