"""Self-play training, evaluation (the arena and its ratings) and export.

Modules here import torch only inside the functions that need it, so the arena and the ratings run with the
engine's dependencies alone.
"""
