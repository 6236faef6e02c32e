"""PettingZoo's classic wrapper chain for ``env()``, reading the AEC attributes from the raw env in one hop.

A PettingZoo wrapper has no ``agent_selection``, ``terminations``, ``agents`` ... of its own: each read falls
through ``BaseWrapper.__getattr__`` to the env it wraps, so on the three-wrapper chain of ``env()`` one read
costs three ``__getattr__`` calls (each checks for a private name, then ``getattr``s the next layer). A plain
AEC loop reads them about 36 times per step (``agent_iter``, ``last``, and the wrappers' own ``step`` and
``observe``), which cost more than the compiled step itself.

The classes below are PettingZoo's ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper`` (subclasses: ``isinstance`` checks and ``AECOrderEnforcingIterator`` still accept
them) with those reads as properties that go straight to the unwrapped env. None of the three wrappers
changes these attributes, so the value read is the same; every check, warning and message of the wrappers
is theirs, unchanged, including ``OrderEnforcingWrapper``'s refusal to show them before ``reset()``. The
attributes stay read-only through the wrappers (assigning one raises ``AttributeError``, where PettingZoo's
wrapper would silently shadow the env's value with its own).
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECEnv

#: the attributes OrderEnforcingWrapper refuses to show before reset()
GUARDED = ("rewards", "terminations", "truncations", "infos", "agent_selection", "agents")


def _direct(name: str, guarded: bool) -> property:
    """Return a read-only property that reads ``name`` from the unwrapped env (after reset() when ``guarded``)."""
    if guarded:

        def read(self: Any) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)
    else:

        def read(self: Any) -> Any:
            return getattr(self._raw, name)

    return property(read, doc=f"The unwrapped env's ``{name}``.")


def _direct_reads(guarded: bool) -> dict[str, Any]:
    """Return the class attributes that read the AEC attributes (and action spaces) from the unwrapped env."""
    names: dict[str, Any] = {n: _direct(n, guarded) for n in GUARDED}
    names["_cumulative_rewards"] = _direct("_cumulative_rewards", False)
    names["possible_agents"] = _direct("possible_agents", False)

    def action_space(self: Any, agent: Any) -> spaces.Space[Any]:
        return self._raw.action_space(agent)  # type: ignore[no-any-return]

    names["action_space"] = action_space
    return names


class _RawLink:
    """Keeps the unwrapped env of a wrapper in ``_raw`` (set once: a chain's innermost env never changes)."""

    _raw: AECEnv

    def _link(self, env: AECEnv) -> None:
        self._raw = env.unwrapped


class TerminateIllegal(wrappers.TerminateIllegalWrapper, _RawLink):  # type: ignore[misc]
    """PettingZoo's ``TerminateIllegalWrapper`` with one-hop attribute reads (see the module docs)."""

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._link(env)


class AssertOutOfBounds(wrappers.AssertOutOfBoundsWrapper, _RawLink):  # type: ignore[misc]
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with one-hop attribute reads (see the module docs)."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._link(env)


class OrderEnforcing(wrappers.OrderEnforcingWrapper, _RawLink):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` with one-hop attribute reads, still refused before ``reset()``."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._link(env)


for _cls, _guarded in ((TerminateIllegal, False), (AssertOutOfBounds, False), (OrderEnforcing, True)):
    for _name, _value in _direct_reads(_guarded).items():
        setattr(_cls, _name, _value)


def classic_chain(raw: AECEnv, illegal_reward: float = -1) -> AECEnv:
    """Return ``raw`` in the classic chain: terminate on an illegal action, assert in bounds, enforce the order."""
    return OrderEnforcing(AssertOutOfBounds(TerminateIllegal(raw, illegal_reward=illegal_reward)))
