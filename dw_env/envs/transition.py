"""One env step of one game, compiled, shared by the AEC env and the vector env.

An env action is half of a human click pair: in phase 1 the acting player chooses one of
its pieces (the state does not change, the same player acts again) or passes / requests
the end; in phase 2 it chooses the piece's destination, which plays the move through the
engine's ``apply_action`` (end of turn included). The rules all live in the engine; this
file only routes actions and computes rewards.

Rewards per seat (``rewards[3]``):

* Terminal, zero-sum (rule 9.5): the ``k`` winners get ``+1/k`` each, the others
  ``-1/(3-k)`` each; all three tied gives 0 each.
* Truncation at ``max_rounds`` (resolution A57, not a rule): ``truncation_reward`` each.
* Optional score-difference shaping: each completed action adds the change of
  ``(own score - mean of the rivals' scores) / total points`` (rule 8.3). It is zero-sum
  and telescopes to the final score difference over a game.
"""

from __future__ import annotations

from typing import Final

from numba import njit

from dw_env.envs.observation import CTRL_PHASE, CTRL_SELECTED, encode_observation
from dw_env.rules.layout import END_REASON, END_REQUEST_ACTION, END_TRUNCATION, OVER, PASS, TURN, WINNERS
from dw_env.rules.territory import score
from dw_env.rules.turn import apply_action

#: ``env_step`` status: a piece was chosen (phase 1 -> 2); nothing else changed
SELECTED: Final = 0
#: ``env_step`` status: an action was played (move, pass or end request) and its end of turn ran
PLAYED: Final = 1


@njit(cache=True, nogil=True)
def _potential(G, lands, p, total):  # type: ignore[no-untyped-def]
    s0 = score(G, lands, 0)
    s1 = score(G, lands, 1)
    s2 = score(G, lands, 2)
    mine = s0 if p == 0 else (s1 if p == 1 else s2)
    return (mine - 0.5 * (s0 + s1 + s2 - mine)) / total


@njit(cache=True, nogil=True)
def terminal_rewards(scalars, truncation_reward, rewards):  # type: ignore[no-untyped-def]
    """Add the end-of-game rewards of a finished game to ``rewards[3]`` (rule 9.5, A57)."""
    if scalars[END_REASON] == END_TRUNCATION:
        for p in range(3):
            rewards[p] += truncation_reward
        return
    winners = scalars[WINNERS]
    k = 0
    for p in range(3):
        if winners >> p & 1:
            k += 1
    if k == 0 or k == 3:
        return
    for p in range(3):
        if winners >> p & 1:
            rewards[p] += 1.0 / k
        else:
            rewards[p] -= 1.0 / (3 - k)


@njit(cache=True, nogil=True)
def env_step(G, F, board, lands, scalars, ctrl, action, W, shaping, truncation_reward, rewards):  # type: ignore[no-untyped-def]
    """Apply one env action of the player to act; write per-seat rewards; return the status.

    The action must be legal under the current action mask (callers check it). Returns
    ``SELECTED``, ``PLAYED``, or the engine's negative ``ERR_*`` code if the engine
    refused the action (then nothing changed).
    """
    num_cells = board.shape[0]
    p = scalars[TURN]
    rewards[:] = 0.0
    if ctrl[CTRL_PHASE] == 0 and 0 <= action < num_cells:
        ctrl[CTRL_PHASE] = 1
        ctrl[CTRL_SELECTED] = F[1][p, action]
        return SELECTED
    if ctrl[CTRL_PHASE] == 0:
        src = PASS if action == num_cells else END_REQUEST_ACTION
        dst = -1
    else:
        src = ctrl[CTRL_SELECTED]
        dst = F[1][p, action] if 0 <= action < num_cells else -1
    total = 0.0
    if shaping:
        land_points = G[9]
        for land in range(land_points.shape[0]):
            total += land_points[land]
        for q in range(3):
            rewards[q] = -_potential(G, lands, q, total)
    code = apply_action(G, board, lands, scalars, src, dst, W)
    if code < 0:
        rewards[:] = 0.0
        return code
    ctrl[CTRL_PHASE] = 0
    ctrl[CTRL_SELECTED] = -1
    if shaping:
        for q in range(3):
            rewards[q] += _potential(G, lands, q, total)
    if scalars[OVER] == 1:
        terminal_rewards(scalars, truncation_reward, rewards)
    return PLAYED


@njit(cache=True, nogil=True)
def step_and_observe(G, F, board, lands, scalars, ctrl, action, W, X, shaping, truncation_reward, rewards, obs, mask):  # type: ignore[no-untyped-def]
    """Run ``env_step`` and write the observation and mask of the player to act next (one call from Python)."""
    status = env_step(G, F, board, lands, scalars, ctrl, action, W, shaping, truncation_reward, rewards)
    encode_observation(G, F, board, lands, scalars, ctrl, scalars[TURN], W, X, obs, mask)
    return status
