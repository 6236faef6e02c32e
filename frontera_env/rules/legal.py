"""Which actions the rules allow now (spec 6.3's decision states, at full fidelity) and why others are refused."""

from __future__ import annotations

from typing import Any

from frontera_env.actions import (
    Action,
    Attack,
    Blitz,
    Deploy,
    EndAttack,
    EndTurn,
    Occupy,
    Place,
    Ready,
    Regroup,
    TakeBack,
    Trade,
)
from frontera_env.rules.cards import HAND_LIMIT, is_set, sets_in_hand
from frontera_env.rules.combat import can_attack
from frontera_env.rules.context import Context
from frontera_env.rules.regroup import reachable
from frontera_env.rules_errors import IllegalAction, brief
from frontera_env.state import ACTIVE, ATTACK, FORCED, OVER, PHASES, REGROUP, REINFORCE, SETUP, WINDOW, State

_SETUP_ACTIONS = (Place, TakeBack, Ready)
_ATTACK_ACTIONS = (Attack, Blitz, EndAttack)


def attack_phase_open(st: State) -> bool:
    """Return True if attack-phase actions are legal: pool placed and at most 4 cards (R-4.3, A17, A18)."""
    hand_ok = st.hand_len[st.current] < HAND_LIMIT
    if st.phase == REINFORCE:
        return st.pool == 0 and hand_ok
    if st.phase == WINDOW:
        return bool(hand_ok)
    return st.phase == ATTACK


def legal_actions(ctx: Context, st: State, seat: int | None = None) -> list[Action]:
    """Return every legal action of ``seat`` (default: the current player, or the next seat to deploy)."""
    if st.phase == OVER:
        return []
    if st.phase == SETUP:
        who = st.current if seat is None else seat
        return _setup_actions(st, who) if who >= 0 and st.status[who] == ACTIVE else []
    if seat is not None and seat != st.current:
        return []
    acts: list[Action] = []
    hand = st.hand_of(st.current)
    if st.phase == REINFORCE or (st.phase == FORCED and len(hand) < HAND_LIMIT):
        acts += [Deploy(t, k) for t in _own(st) for k in range(1, st.pool + 1)]
    if ctx.cards and (st.phase == REINFORCE or (st.phase == FORCED and len(hand) >= HAND_LIMIT)):
        acts += [Trade(c) for c in sets_in_hand(ctx, hand)]
    if st.phase == WINDOW:
        acts += [Occupy(x) for x in range(int(st.window[3]), int(st.window[4]) + 1)]
    if attack_phase_open(st):
        for s in _own(st):
            for t in ctx.neighbours[s]:
                if can_attack(ctx, st, s, t):
                    acts += [Attack(s, t), Blitz(s, t)]
        acts.append(EndAttack())
    if st.phase == REGROUP:
        if st.moves_left >= 1:
            for s in _own(st):
                if st.armies[s] >= 2:
                    for d in reachable(ctx, st, s):
                        acts += [Regroup(s, d, k) for k in range(1, int(st.armies[s]))]
        acts.append(EndTurn())
    return acts


def _own(st: State) -> list[int]:
    return [t for t in range(st.territories) if st.owner[t] == st.current]


def _setup_actions(st: State, seat: int) -> list[Action]:
    acts: list[Action] = []
    left = int(st.deploy_left[seat])
    for t in range(st.territories):
        if st.owner[t] == seat:
            acts += [Place(seat, t, k) for k in range(1, left + 1)]
            acts += [TakeBack(seat, t, k) for k in range(1, int(st.placed[seat, t]) + 1)]
    if left == 0 and not st.ready[seat]:
        acts.append(Ready(seat))
    return acts


def _int(value: Any, what: str, lo: int, hi: int, rule: str) -> int:
    """Return ``value`` if it is an integer in lo..hi, else raise IllegalAction naming it and the range."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise IllegalAction(rule, f"{what} must be an integer in {lo}..{hi}, got {brief(value)}")
    return value


def check(ctx: Context, st: State, action: Any) -> None:
    """Raise IllegalAction naming the rule and what is allowed unless ``action`` is legal now."""
    phase = PHASES[st.phase]
    if st.phase == OVER:
        raise IllegalAction("R-10.2", f"the game is over; no action is allowed, got {brief(action)}")
    if isinstance(action, _SETUP_ACTIONS):
        if st.phase != SETUP:
            raise IllegalAction("R-2.7", f"{brief(action)} belongs to the deployment; the phase is {phase}")
        _check_setup(st, action)
        return
    if st.phase == SETUP:
        raise IllegalAction("R-2.7", f"during the deployment only Place, TakeBack and Ready; got {brief(action)}")
    if isinstance(action, Deploy):
        _check_deploy(st, action, phase)
    elif isinstance(action, Trade):
        _check_trade(ctx, st, action, phase)
    elif isinstance(action, _ATTACK_ACTIONS):
        _check_attack(ctx, st, action, phase)
    elif isinstance(action, Occupy):
        if st.phase != WINDOW:
            raise IllegalAction("R-6.2", f"no adjust window is open (phase {phase}); Occupy is not allowed")
        _int(action.garrison, "the garrison", int(st.window[3]), int(st.window[4]), "R-6.2")
    elif isinstance(action, Regroup | EndTurn):
        _check_regroup(ctx, st, action, phase)
    else:
        raise IllegalAction("spec 6.2", f"not a Frontera action: {brief(action)}")


def _check_setup(st: State, action: Place | TakeBack | Ready) -> None:
    seat = _int(action.seat, "the seat", 0, st.players - 1, "R-2.7")
    if st.status[seat] != ACTIVE:
        raise IllegalAction("R-11.1", f"seat {seat} has left the game; only active seats deploy")
    if isinstance(action, Ready):
        if st.deploy_left[seat] or st.ready[seat]:
            why = "is already ready" if st.ready[seat] else f"still has {st.deploy_left[seat]} armies to place"
            raise IllegalAction("R-2.7 (A11)", f"seat {seat} {why}; ready needs every army placed, once")
        return
    t = _int(action.territory, "the territory", 0, st.territories - 1, "R-2.7")
    if st.owner[t] != seat:
        raise IllegalAction("R-2.7", f"territory {t} is not seat {seat}'s; armies go on its own territories")
    most = int(st.deploy_left[seat]) if isinstance(action, Place) else int(st.placed[seat, t])
    if most < 1:
        what = "no armies left to place" if isinstance(action, Place) else f"no provisional army on {t}"
        raise IllegalAction("R-2.7", f"seat {seat} has {what}")
    _int(action.count, "the count", 1, most, "R-2.7")


def _check_deploy(st: State, action: Deploy, phase: str) -> None:
    forced_ok = st.phase == FORCED and st.hand_len[st.current] < HAND_LIMIT
    if st.phase != REINFORCE and not forced_ok:
        why = "trade first (the hand holds 5 or more)" if st.phase == FORCED else f"the phase is {phase}"
        raise IllegalAction("R-4.2", f"DEPLOY is allowed in reinforce and after a forced trade; {why}")
    t = _int(action.territory, "the territory", 0, st.territories - 1, "R-4.2")
    if st.owner[t] != st.current:
        raise IllegalAction("R-4.2", f"territory {t} is not the current player's; deploy on own territories")
    if st.pool < 1:
        raise IllegalAction("R-4.2", "the pool is empty; nothing to deploy")
    _int(action.count, "the count", 1, st.pool, "R-4.2")


def _check_trade(ctx: Context, st: State, action: Trade, phase: str) -> None:
    if not ctx.cards:
        raise IllegalAction("R-9.7", "this game is played with cards off; there are no trades")
    hand = st.hand_of(st.current)
    if st.phase == FORCED and len(hand) < HAND_LIMIT:
        raise IllegalAction("R-6.4", "the forced trade stops at 4 cards or fewer; place the pool with DEPLOY")
    if st.phase not in (REINFORCE, FORCED):
        raise IllegalAction("R-4.2", f"trades are allowed in reinforce or a forced trade; the phase is {phase}")
    cards = action.cards
    if not isinstance(cards, tuple) or len(cards) != 3 or len(set(cards)) != 3:
        raise IllegalAction("R-9.2", f"a trade names 3 distinct cards, got {brief(cards)}")
    for c in cards:
        _int(c, "a card id", 0, ctx.n + 1, "R-9.2")
        if c not in hand:
            raise IllegalAction("R-9.2", f"card {c} is not in the current player's hand {sorted(hand)}")
    if not is_set(ctx, cards):
        raise IllegalAction("R-9.2", f"cards {brief(cards)} are no set: three alike, three different or a wildcard")


def _check_attack(ctx: Context, st: State, action: Attack | Blitz | EndAttack, phase: str) -> None:
    if not attack_phase_open(st):
        if st.phase in (REINFORCE, WINDOW, FORCED):
            raise IllegalAction(
                "R-4.3 (A17, A18)",
                f"place the pool ({st.pool} left) and trade down to 4 cards ({st.hand_len[st.current]} held) first",
            )
        raise IllegalAction("R-5", f"attack-phase actions are not allowed in the {phase} phase")
    if isinstance(action, EndAttack):
        return
    s = _int(action.source, "the source", 0, st.territories - 1, "R-5.1")
    t = _int(action.target, "the target", 0, st.territories - 1, "R-5.1")
    if not can_attack(ctx, st, s, t):
        raise IllegalAction(
            "R-5.1",
            f"cannot attack {s} -> {t}: the source must be own with >= 2 armies (has {st.armies[s]}, owner "
            f"{st.owner[s]}), the target a land or sea neighbour {list(ctx.neighbours[s])} not owned by the attacker",
        )


def _check_regroup(ctx: Context, st: State, action: Regroup | EndTurn, phase: str) -> None:
    if st.phase != REGROUP:
        raise IllegalAction("R-7", f"regroup and END_TURN come after END_ATTACK; the phase is {phase}")
    if isinstance(action, EndTurn):
        return
    if st.moves_left < 1:
        raise IllegalAction("R-7.1", "the 3 regroup moves of this turn are spent; END_TURN is allowed")
    s = _int(action.source, "the source", 0, st.territories - 1, "R-7.1")
    d = _int(action.dest, "the destination", 0, st.territories - 1, "R-7.1")
    if st.owner[s] != st.current:
        raise IllegalAction("R-7.1", f"territory {s} is not the current player's")
    if d not in reachable(ctx, st, s):
        raise IllegalAction("R-7.1 (A34)", f"{d} is not reachable from {s} through the player's own territories")
    _int(action.count, "the count", 1, int(st.armies[s]) - 1, "R-7.1")
