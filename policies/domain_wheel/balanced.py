"""Equilibrada (Balanced): "Conquista lo mejor que tiene a mano, tapa avances ajenos y pide terminar si va
a ganar." (spec section 6.1).

Each turn, in order: request the end if that wins strictly; block a rival position that would
complete within 2 of its owner's turns (centre first, then points x urgency); otherwise pursue
the land with the best ``points / eta`` (conquest; a liberation only when clearly cheaper),
keeping the current target while it stays within 25 % of the best. "Points" include a quarter
of what the land opens up (:func:`policies.domain_wheel.toolkit.opening_value`), so that the 1-point ring 3
in front of its start land is seen as the way to the 3- and 6-point rings behind it. The
centre counts only when rule 6.8 can be met and its 13 points would make Balanced the leader.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game, Move
from policies.domain_wheel import toolkit as tk
from policies.domain_wheel.scripted import ScriptedPolicy, would_win_with_centre

#: a liberation is chosen over conquering the same land only below this share of its eta
LIBERATION_SHARE = 0.5


class BalancedPolicy(ScriptedPolicy):
    """Best points per turn at hand, urgent blocks, end request when winning."""

    name = "balanced"
    display_name = "Equilibrada"
    #: mostly what is at hand: a land's own points weigh more than what it opens up
    opening_weight = 0.25

    def decide(self, game: Game, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        p = sit.seat
        move = self.block(sit, allowed, horizon=2, order="urgency")
        if move is not None:
            return move
        free = self.free_knights(allowed)
        eta_c = tk.conquest_eta(sit, p, free, self.turns_to_conquer)
        eta_l = tk.liberation_eta(sit, p, free)
        conquer = self.conquest_values(sit, eta_c)
        if not would_win_with_centre(sit, p):
            conquer[sit.centre] = -math.inf
        cheaper = np.isfinite(eta_l) & (eta_l < LIBERATION_SHARE * eta_c)
        # a liberation only takes the points from the rival; a conquest also gives them to us
        liberate = np.where(cheaper, LIBERATION_SHARE * sit.points / np.maximum(eta_l, 1.0), -math.inf)
        self.update_plan(sit, conquer, liberate)
        return self.pursue(sit, allowed) or self.prepare(sit, allowed)
