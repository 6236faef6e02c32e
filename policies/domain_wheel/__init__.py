"""Domain Wheel's own seats (floor 1: they import :mod:`dw_env`): the six scripted AIs and the network.

The scripted AIs of the original game (``balanced``, ``expansionist``, ``center``, ``raider``, ``guardian``,
``random``) are registered by name in :mod:`policies.registry`; their shared reading of a position is
:mod:`policies.domain_wheel.toolkit` over the compiled :mod:`policies.domain_wheel.kernels`. The learned seat
is :mod:`policies.domain_wheel.network` (the network), :mod:`policies.domain_wheel.network_policy` (the seat)
and :mod:`policies.domain_wheel.two_phase` (a move as two actions, shared with the exported packages).
What every game's seats share (the seat interface, checkpoints, packages, search, bounded calls) stays at the
top of :mod:`policies`, beside Alveole's and Conquer's folders.
"""
