"""Seats given by spec: a registry name ("balanced"), a path to a policy file (a learned checkpoint), a strategy
package folder, or a prefixed spec such as ``search:PATH?playouts=64`` (:data:`PREFIXED`).

``dw arena`` and other tools accept a *seat spec* wherever a strategy is expected. A spec that names a
registered policy builds it with :func:`policies.registry.make`; anything else is taken as a file and
loaded by :func:`load_policy_file`, which picks a loader by the file's suffix from :data:`LOADERS`, or as a
folder holding a ``strategy.json`` manifest (an exported strategy package, ``dw export``), loaded by
:data:`PACKAGE_LOADER` without torch.

Loaders are given as ``"module:function"`` strings and imported on first use, so that listing or checking
specs never imports torch. A loader is called as ``function(path, seed)`` and returns a
:class:`policies.base.Policy`. The arena loads a file once per worker process and seat and calls
``reset(seed)`` before every game, so after ``reset`` the policy's behaviour must depend on the seed alone
(that is what makes results identical for any worker count). Add new file types to :data:`LOADERS` in
this file, not at run time: arena worker processes import this module afresh and must see the same table.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from policies.base import Policy
from policies.registry import available, make

#: file suffix (lower case, with the dot) -> "module:function" loading a Policy from such a file
LOADERS: dict[str, str] = {
    ".pt": "policies.domain_wheel.network_policy:load",  # a dw train checkpoint (policies/checkpoint.py)
}
#: "module:function" loading a Policy from a strategy package folder (policies/package.py)
PACKAGE_LOADER = "policies.onnx_policy:load"
#: the file that marks a folder as a strategy package
PACKAGE_MANIFEST = "strategy.json"
#: spec prefix -> ("module:check", "module:load") for seats written ``prefix:...`` (a file plus settings):
#: ``check(spec)`` raises ValueError/FileNotFoundError for a bad spec, ``load(spec, seed)`` returns the Policy
PREFIXED: dict[str, tuple[str, str]] = {
    "search:": ("policies.search:check_spec", "policies.search:load"),  # tree search over a network
}


def _prefixed(spec: str) -> tuple[str, str] | None:
    return next((targets for prefix, targets in PREFIXED.items() if spec.startswith(prefix)), None)


def _function(target: str) -> Callable[..., Any]:
    module, _, func = target.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), func)
    return found


def supported_suffixes() -> list[str]:
    """Return the file suffixes that have a loader."""
    return sorted(LOADERS)


def _supported_text() -> str:
    return ", ".join(supported_suffixes()) + f", or a strategy package folder (with {PACKAGE_MANIFEST})"


def _is_package(p: Path) -> bool:
    return p.is_dir() and (p / PACKAGE_MANIFEST).is_file()


def _call(target: str, path: Path, seed: int | None) -> Policy:
    policy: Policy = _function(target)(path, seed)
    return policy


def load_policy_file(path: str | Path, seed: int | None = None) -> Policy:
    """Return the policy stored in ``path`` (a policy file or a strategy package folder), seeded with ``seed``.

    Raises FileNotFoundError if the file does not exist and ValueError naming the supported file types
    when no loader handles its suffix. A prefixed spec (:data:`PREFIXED`, e.g. ``search:PATH``) is loaded by
    its prefix's loader.
    """
    prefixed = _prefixed(str(path)) if isinstance(path, str) else None
    if prefixed is not None:
        _function(prefixed[0])(path)
        policy: Policy = _function(prefixed[1])(path, seed)
        return policy
    p = Path(path)
    if _is_package(p):
        return _call(PACKAGE_LOADER, p, seed)
    if p.is_dir():
        raise ValueError(f"{path}: a folder, but not a strategy package ({PACKAGE_MANIFEST} is missing)")
    if not p.is_file():
        raise FileNotFoundError(f"no such policy file: {path}")
    target = LOADERS.get(p.suffix.lower())
    if target is None:
        raise ValueError(
            f"{path}: no loader for this file type ({p.suffix or 'no suffix'}); supported: {_supported_text()}"
        )
    return _call(target, p, seed)


def is_registered(spec: str) -> bool:
    """Return True if ``spec`` is a registered policy name (not a file)."""
    return spec in available()


def check_seat_spec(spec: str) -> None:
    """Raise ValueError (or FileNotFoundError) unless ``spec`` is a registered name or a loadable file type."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a seat must be a strategy name or a policy file path, got {spec!r}")
    if is_registered(spec):
        return
    prefixed = _prefixed(spec)
    if prefixed is not None:
        _function(prefixed[0])(spec)
        return
    p = Path(spec)
    if _is_package(p):
        return
    if p.is_dir():
        raise ValueError(f"{spec}: a folder, but not a strategy package ({PACKAGE_MANIFEST} is missing)")
    if p.is_file():
        if p.suffix.lower() not in LOADERS:
            raise ValueError(
                f"{spec}: no loader for this file type ({p.suffix or 'no suffix'}); supported: {_supported_text()}"
            )
        return
    if p.suffix or "/" in spec or "\\" in spec:
        raise FileNotFoundError(f"no such policy file: {spec}")
    raise ValueError(
        f"unknown strategy {spec!r}; allowed: {', '.join(available())}, "
        f"or a path to a policy file (supported types: {_supported_text()}), "
        f"or {' / '.join(p + 'PATH' for p in PREFIXED)}"
    )


def make_seat_policy(spec: str, seed: int | None = None) -> Policy:
    """Return the policy for a seat spec: a registered name or a policy file path."""
    if is_registered(spec):
        return make(spec, seed=seed)
    check_seat_spec(spec)
    return load_policy_file(spec, seed)
