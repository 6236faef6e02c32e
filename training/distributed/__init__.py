"""Running work elsewhere: worker processes, the game pool, the Ray cluster, and stopping cleanly on a signal.

The lowest floor of :mod:`training`: it imports no other sub-package and knows no game.
"""
