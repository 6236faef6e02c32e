"""The shared room beneath the game engines: what every engine needs and none should repeat.

Bounded error messages (:mod:`gamecore.errors`) and bounded loaders for files, JSON and YAML
(:mod:`gamecore.loaders`). It imports no engine and nothing above them (tests/test_rooms.py).
"""
