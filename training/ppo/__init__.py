"""The PPO trainer: config, league, objectives, rollouts, update processes, warm start, evaluation, resume.

:mod:`training.ppo.ppo` reads top to bottom like CleanRL's ``ppo.py``; the rest are its parts. Imports
:mod:`training.evaluation` and :mod:`training.distributed`, never the exporter or the studies.
"""
