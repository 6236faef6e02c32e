"""Frontera's rules as pure functions over (context, state), one file per phase; rule numbers follow the spec.

``context`` is the map's derived tables plus the game's options (:mod:`frontera_env.rules.context`); every
function mutates only the :class:`frontera_env.state.State` it is given and draws chance only from its PRNG.
"""
