"""Self-play training, evaluation (the arena and its ratings), export and designer studies, one sub-package each.

The sub-packages import one way, from the bottom up (tests/test_rooms.py checks it):

1. :mod:`training.distributed`: running work elsewhere: worker processes, the game pool, the Ray cluster and
   stopping cleanly on a signal. It knows no game and no algorithm.
2. :mod:`training.evaluation`: the arena (line-ups, seeded tournaments, statistics, reports) and the ratings.
3. on top of those two, side by side, importing neither of the others:

   * :mod:`training.export`: a checkpoint as an ONNX strategy package (parity, strength card, install);
   * :mod:`training.studies`: designer sweeps over rule variants, their report and the exploit finder;
   * :mod:`training.ppo`: the PPO trainer (its config, league, objectives, rollouts, update processes, warm
     start, evaluation, resume and run folder);
   * :mod:`training.search_guided`: search-guided self-play (expert iteration, multiplayer AlphaZero): the
     Gumbel max^n search, its config and its trainer (``algo: search_guided``).

Modules here import torch only inside the functions that need it, so the arena and the ratings run with the
engine's dependencies alone.
"""

import gamecore  # noqa: F401  (first: points numba's cache at the project's hashed folder)
