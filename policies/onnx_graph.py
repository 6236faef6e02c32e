"""An exported strategy package's graphs on onnxruntime, for every game: open, check, run, and decide.

:class:`OnnxGraph` opens one graph of a package (:mod:`policies.package`) on onnxruntime's CPU provider and
checks it against its manifest entry (input and output names, dtypes and shapes, metadata_props);
:class:`GraphSeat` is what every game's package seat shares: the package's names, the check that sampling
has logits, every graph opened at load time, and a decision that is greedy (the graph's argmax) or sampled
from the masked logits with the seat's seed (:func:`checked_action`, :func:`sample_legal`). Each game's
seat adds only how its observation reaches a graph: Domain Wheel's two-phase driver
(:mod:`policies.domain_wheel.package_seat`), the board games' own planes (:mod:`policies.board_onnx_policy`).
No torch here, and no game.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from gamecore.errors import brief
from policies import bounded
from policies.base import Policy
from policies.bounded import IllegalOutputError
from policies.package import GraphSpec, Package, PackageError, TensorSpec, graph_bytes

_NUMPY: Final = {"int8": np.int8, "int64": np.int64, "float32": np.float32}
_ORT_TYPES: Final = {"tensor(int8)": "int8", "tensor(int64)": "int64", "tensor(float)": "float32"}


class OnnxGraph:
    """One graph of a package on onnxruntime's CPU provider, checked against its manifest entry."""

    def __init__(self, package: Package, spec: GraphSpec) -> None:
        import onnxruntime as ort

        self.spec = spec
        self.file = package.folder / spec.file
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one decision at a time: threads would only contend
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(
                graph_bytes(package.folder, spec), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types for damaged graphs
            raise PackageError(f"{self.file}: not a readable ONNX graph ({exc})") from None
        self._check(package)
        obs, mask = spec.tensor("observation"), spec.tensor("mask")
        assert obs is not None and mask is not None  # validate_manifest guarantees the roles
        self._obs, self._mask = obs, mask
        self._obs_dtype, self._mask_dtype = _NUMPY[obs.dtype], _NUMPY[mask.dtype]
        logits, action = spec.tensor("logits"), spec.tensor("action")
        assert action is not None
        self._fetch = [action.name] + ([logits.name] if logits is not None else [])
        self.has_logits = logits is not None
        value = spec.tensor("value")
        self._evaluate_fetch = [logits.name, value.name] if logits is not None and value is not None else None
        self.has_value = self._evaluate_fetch is not None

    def _check(self, package: Package) -> None:
        found = self.session.get_modelmeta().custom_metadata_map
        for key, expected in package.metadata(self.spec).items():
            if found.get(key) != expected:
                raise PackageError(
                    f"{self.file}: metadata {key!r} is {found.get(key)!r}, the manifest says {expected!r} "
                    f"(graph and manifest disagree)"
                )
        for kind, declared, actual in (
            ("input", self.spec.inputs, self.session.get_inputs()),
            ("output", self.spec.outputs, self.session.get_outputs()),
        ):
            have = [_spec_of(a) for a in actual]
            want = list(declared)
            if [(t.name, t.dtype) for t in have] != [(t.name, t.dtype) for t in want] or not all(
                _shape_fits(h.shape, w.shape) for h, w in zip(have, want, strict=True)
            ):
                raise PackageError(
                    f"{self.file}: graph {kind}s are {_text(have)}, the manifest says {_text(want)} "
                    f"(graph and manifest disagree)"
                )

    def run(self, obs: NDArray[Any], mask: NDArray[Any]) -> tuple[NDArray[np.int64], NDArray[np.float32] | None]:
        """Return (greedy actions [B], masked logits [B, A] or None) for a batch of observations and masks."""
        feed = {self._obs.name: obs.astype(self._obs_dtype, copy=False), self._mask.name: mask.astype(self._mask_dtype)}
        out = self._run(self._fetch, feed)
        return np.asarray(out[0]).reshape(len(obs)), (out[1] if self.has_logits else None)

    def _run(self, fetch: list[str], feed: dict[str, NDArray[Any]]) -> list[Any]:
        """Return the graph's outputs; a bounded decision that is abandoned stops the run (:mod:`policies.bounded`)."""
        import onnxruntime as ort

        options = ort.RunOptions()
        options.log_severity_level = 4  # a stopped run is reported by the seat's fault, not logged twice
        with bounded.stoppable(lambda: setattr(options, "terminate", True)):
            out: list[Any] = self.session.run(fetch, feed, options)
        return out

    def check_evaluate(self) -> None:
        """Raise PackageError unless the graph has the logits and the value a search seat reads."""
        if self._evaluate_fetch is None:
            missing = "logits" if not self.has_logits else "value"
            raise PackageError(
                f"{self.file}: this graph has no {missing} output, which a search seat needs; export the agent "
                f"again with this version (dw export --flavour plain writes both), or seat the package without search"
            )

    def evaluate(self, obs: NDArray[Any], mask: NDArray[Any]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Return (masked logits [B, A], values of the acting player [B]): what a search seat asks of the graph.

        PackageError if the graph has no logits or no value output (:meth:`check_evaluate`).
        """
        self.check_evaluate()
        assert self._evaluate_fetch is not None
        feed = {self._obs.name: obs.astype(self._obs_dtype, copy=False), self._mask.name: mask.astype(self._mask_dtype)}
        logits, values = self._run(self._evaluate_fetch, feed)
        return np.asarray(logits, np.float32), np.asarray(values, np.float32).reshape(len(obs))


def checked_action(value: Any, mask: NDArray[Any], label: str) -> int:
    """Return the graph's action ``value`` as an int if ``mask`` allows it; IllegalOutputError naming it otherwise.

    A negative action must not wrap around (action -1 once became the last cell) and a huge one must not reach
    an index (2**62 once raised IndexError in the arena): both are refused here, before any table is read.
    """
    action = int(value)
    if not 0 <= action < len(mask) or mask[action] == 0:
        raise IllegalOutputError(
            f"{label}: the graph chose action {brief(action)}, which is not legal here "
            f"(allowed: {int(np.count_nonzero(mask))} actions of 0..{len(mask) - 1} that the mask marks)"
        )
    return action


def sample_legal(logits: NDArray[Any], mask: NDArray[Any], rng: np.random.Generator, label: str) -> int:
    """Return an action sampled from the legal actions' softmax; IllegalOutputError if their logits are not finite."""
    legal = np.flatnonzero(mask)
    z = np.asarray(logits, np.float64)[legal]
    if len(legal) == 0 or not np.isfinite(z).all():
        raise IllegalOutputError(
            f"{label}: the graph's logits of the legal actions are not finite numbers ({brief(z.tolist())}); "
            f"allowed: finite logits"
        )
    p = np.exp(z - z.max())
    return int(legal[int(rng.choice(len(legal), p=p / p.sum()))])


def _spec_of(arg: Any) -> TensorSpec:
    dims = tuple(d if isinstance(d, int) else "batch" for d in arg.shape)
    return TensorSpec(arg.name, _ORT_TYPES.get(arg.type, arg.type), dims)


def _shape_fits(have: tuple[int | str, ...], want: tuple[int | str, ...]) -> bool:
    return len(have) == len(want) and all(h == w for h, w in zip(have, want, strict=True))


def _text(specs: list[TensorSpec]) -> str:
    return ", ".join(f"{t.name} {t.dtype}[{', '.join(map(str, t.shape))}]" for t in specs)


class GraphSeat(Policy):
    """A seat that plays through a package's graphs: greedy by default, or sampling with the seat's seed."""

    name = "package"
    display_name = "Estrategia exportada"

    def __init__(self, package: Package, seed: int | None = None, greedy: bool = True) -> None:
        super().__init__(seed)
        self.package = package
        self.greedy = greedy
        self.label = package.name
        self.display_name = str(package.manifest["display_names"].get("es", package.name))

    def _open_graphs(self) -> None:
        """Open and check every graph now, so that a bad package fails when it is loaded, not mid-game."""
        if not self.greedy and self.package.graphs[0].roles["logits"] is None:
            raise PackageError(
                f"{self.package.folder}: sampling needs the graph's logits, and this {self.package.flavour} "
                f"package has none; play it greedy"
            )
        self._graphs = {spec.file: OnnxGraph(self.package, spec) for spec in self.package.graphs}

    def _decide(self, graph: OnnxGraph, obs: NDArray[Any], mask: NDArray[Any]) -> int:
        """Return ``graph``'s action for one observation and mask; IllegalOutputError if it is not legal."""
        action, logits = graph.run(obs[None], mask[None])
        if self.greedy:
            return checked_action(action[0], mask, self.label)
        assert logits is not None
        return sample_legal(logits[0], mask, self.rng, self.label)
