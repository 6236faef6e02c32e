"""The arena (line-ups, seeded tournaments over every seating, statistics, reports) and the ratings.

Imports only :mod:`training.distributed` beneath it; export, studies and the trainer build on it.
"""
