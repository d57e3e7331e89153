"""The five plugin hooks of solverkit, one per plugin kind.

Every hook is called with a ``register`` callable when the registry is built: once at start-up,
and again whenever a plugin is added or removed, so a hook should only call ``register``. A
plugin calls ``register(cls)`` for each class it provides; the class's ``name`` attribute is the
name users write in config files. Built-ins register through these same hooks. The plugin
author's guide, with every hook's contract, is docs/plugins.md.
"""

import pluggy

hookspec = pluggy.HookspecMarker("solverkit")
hookimpl = pluggy.HookimplMarker("solverkit")


# --- Games -----------------------------------------------------------------------------------


@hookspec
def register_games(register):
    """Register game classes.

    Called when the registry is built. ``register(cls)`` takes a subclass of
    ``solverkit.core.game.Game`` with a unique ``name``; it implements ``layout``, ``cfr_pass``
    and ``best_response``. Return nothing.
    """


# --- Learning rules --------------------------------------------------------------------------


@hookspec
def register_regret_rules(register):
    """Register regret rules (how stored regrets absorb an iteration's instantaneous regrets).

    Called when the registry is built. ``register(cls)`` takes a subclass of
    ``solverkit.core.rule.RegretRule`` with a unique ``name``; it implements ``coefficients``
    (the discounted family) or overrides ``update``. Return nothing.
    """


@hookspec
def register_averaging(register):
    """Register averaging schemes (the weight of each iteration in the average strategy).

    Called when the registry is built. ``register(cls)`` takes a subclass of
    ``solverkit.core.averaging.Averaging`` with a unique ``name``; it implements
    ``coefficients`` (decay and weight of iteration t). Return nothing.
    """


# --- Storage and distribution ----------------------------------------------------------------


@hookspec
def register_compressors(register):
    """Register compressors (bytes in, bytes out) used by the value store.

    Called when the registry is built. ``register(cls)`` takes a subclass of
    ``solverkit.core.compressor.Compressor`` with a unique ``name``; it implements ``compress``
    and ``decompress``. Return nothing.
    """


@hookspec
def register_transports(register):
    """Register transports (how a pass over a game's subgames is carried out).

    Called when the registry is built. ``register(cls)`` takes a subclass of
    ``solverkit.core.transport.Transport`` with a unique ``name``; it implements
    ``map_subgames`` (and ``start`` and ``close`` where it holds resources). Return nothing.
    """
