"""RL environments on the rules engine: PettingZoo AEC, batched vector env, single-agent Gymnasium wrapper.

The documentation page is :mod:`dw_env.domain_wheel_v0`. These modules hold no rule: every
transition, legality test and score comes from the compiled kernels in :mod:`dw_env.rules`.
"""
