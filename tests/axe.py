"""axe-core for the browser tests: where `.ci/run` installs it (npm, pinned), and a check that runs it on a page.

Nothing is fetched at test time: the tests read ``axe.min.js`` from ``$DW_AXE_JS`` or from ``.ci-node/`` under the
repository (``npm install --prefix .ci-node axe-core@VERSION``, as `.ci/run` and the README's test command do).
Without it the checks fail, saying how to install it: a skipped accessibility check would pass silently.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

#: the version `.ci/run` installs (keep the two equal)
AXE_VERSION = "4.10.2"
AXE_JS = Path(
    os.environ.get("DW_AXE_JS")
    or Path(__file__).resolve().parents[1] / ".ci-node" / "node_modules" / "axe-core" / "axe.min.js"
)


def require_axe() -> str:
    """Return axe-core's script; fail the test, naming the install command, when it is not installed."""
    if not AXE_JS.exists():
        pytest.fail(
            f"the accessibility checks need axe-core at {AXE_JS}: "
            f"npm install --prefix .ci-node axe-core@{AXE_VERSION} (or set DW_AXE_JS to its axe.min.js)"
        )
    return AXE_JS.read_text(encoding="utf-8")


#: the impacts that fail a check (axe's "minor" and "moderate" are reported by axe, not failed here)
FAILING = ("serious", "critical")


def axe_violations(pg: Any, rules: list[str] | None = None, exclude: list[str] | None = None) -> list[str]:
    """Return one line per serious or critical axe violation on the page (rule, impact, first offending nodes)."""
    if not pg.evaluate("typeof window.axe !== 'undefined'"):
        pg.add_script_tag(content=require_axe())
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    context = {"exclude": [[sel] for sel in exclude]} if exclude else {"include": [["html"]]}
    found = pg.evaluate("([context, options]) => axe.run(context, options)", [context, options])
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at " + "; ".join(" ".join(n["target"]) for n in v["nodes"][:4])
        for v in found["violations"]
        if v["impact"] in FAILING
    ]
