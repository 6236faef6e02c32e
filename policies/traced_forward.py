"""A network's inference pass as a TorchScript trace: the same numbers, computed without holding the GIL.

Why. A trainer on a CPU plays its rollouts in chunks on a thread per core (training/ppo/network_threads.py).
Each of the thousands of small ops in a chunk's forward pass is dispatched from Python, and the Python part
of every dispatch holds the GIL, so two threads wait on each other: one standard-map chunk of 28 observations
took 3.6 ms alone and 4.6 ms a thread with two threads at once (two *processes* lose about 10%: what the
cores themselves share). A trace runs the whole pass in TorchScript's interpreter, which holds no GIL: 3.8 ms
alone and 3.8 ms a thread with two at once.

A trace records the network's plain expressions (``policies.domain_wheel.cell_passes.recording``: no in-place steps),
which compute the same numbers bit for bit; ``tests/test_traced_forward.py`` checks it on both maps and for
every chunk size, and the same for a ``turn_trunk`` network's trunk and heads (:func:`traced_turn`). Nothing
about a trace is saved: it is made from the network on first use and made again whenever the network's
parameters, buffers, map or convolution dtype are no longer the ones it was made from. It reads the network's
parameters themselves, so the optimizer's in-place steps need no new trace.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn

Forward = Callable[[Tensor], tuple[Tensor, Tensor]]

#: each network's trace and what it was made from (:func:`_made_from`)
_TRACES: weakref.WeakKeyDictionary[nn.Module, tuple[tuple[Any, ...], Forward]] = weakref.WeakKeyDictionary()


def _made_from(net: nn.Module) -> tuple[Any, ...]:
    """Return what a trace of ``net`` depends on besides the tensors' values."""
    return (
        net.training,
        getattr(net, "conv_dtype", None),
        id(getattr(net, "geometry", None)),
        tuple(p.data_ptr() for p in net.parameters()),
        tuple(b.data_ptr() for b in net.buffers()),
    )


def _kept(
    traces: weakref.WeakKeyDictionary[nn.Module, tuple[tuple[Any, ...], Any]], net: nn.Module, make: Callable[[], Any]
) -> Any:
    """Return ``traces[net]``'s trace if ``net`` is still as it was traced (:func:`_made_from`), else ``make()``'s,
    kept there. ``make`` runs without gradients and outside inference mode, with the tracer's warnings off: the
    shape check of the observation's width becomes a constant (a trace is made per map), and torch 2.13 calls
    torch.jit.trace deprecated (its suggested successors compile, slower here and not GIL-free, docs/TRAINING.md,
    or export a graph for another runtime)."""
    key = _made_from(net)
    known = traces.get(net)
    if known is not None and known[0] == key:
        return known[1]
    with torch.inference_mode(False), torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", torch.jit.TracerWarning)  # type: ignore[attr-defined]
        warnings.simplefilter("ignore", DeprecationWarning)
        trace = make()
    traces[net] = (key, trace)
    return trace


def traced_forward(net: nn.Module, example: Tensor) -> Forward:
    """Return a TorchScript trace of ``net.forward`` (observations [B, D] -> (logits, values)) for inference.

    ``example`` is a batch of observations of the size the trace will mostly see (any batch size runs). The
    trace is made once and kept while ``net`` lives and stays as it was (module doc). Call it without
    gradients (``torch.no_grad`` or ``torch.inference_mode``) and without autocast: it runs in float32 as
    traced.
    """
    trace: Forward = _kept(
        _TRACES,
        net,
        lambda: torch.jit.trace(net, (example.clone(),), check_trace=False),  # type: ignore[no-untyped-call]
    )
    return trace


#: each ``turn_trunk`` network's traces of its trunk and heads, and what they were made from
_TURN_TRACES: weakref.WeakKeyDictionary[nn.Module, tuple[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()


def traced_turn(net: nn.Module, example: Tensor) -> Any:
    """Return a TorchScript trace of a ``turn_trunk`` network's ``trunk`` and ``heads`` methods, for inference.

    A trainer's rollout computes a turn's trunk once and its two decisions' heads from it
    (``policies.domain_wheel.network.TrunkCache``); these traces let both run on threads without holding the GIL, as
    :func:`traced_forward` does for the whole pass. ``trace.trunk(obs)`` returns the trunk as a plain tuple
    (``Trunk``'s fields in order); ``trace.heads(trunk, obs, member)`` takes it with the observations and each
    one's trunk row. The same rules as :func:`traced_forward`: made once per network and state, no gradients,
    no autocast, the same numbers as the eager methods.
    """

    def make() -> Any:
        obs = example.clone()
        member = torch.arange(obs.shape[0], device=obs.device)
        inputs = {"trunk": (obs,), "heads": (tuple(net.trunk(obs)), obs, member)}  # type: ignore[operator]
        return torch.jit.trace_module(net, inputs, check_trace=False)  # type: ignore[no-untyped-call]

    return _kept(_TURN_TRACES, net, make)
