"""The five plugin hooks of solverkit, one per plugin kind.

Every hook is called once, at registry start-up, with a ``register`` callable. A plugin calls
``register(cls)`` for each class it provides; the class's ``name`` attribute is the name users
write in config files. Built-ins register through these same hooks.
"""

import pluggy

hookspec = pluggy.HookspecMarker("solverkit")
hookimpl = pluggy.HookimplMarker("solverkit")


# --- Games -----------------------------------------------------------------------------------


@hookspec
def register_games(register):
    """Register game classes.

    Called once when the registry starts. ``register(cls)`` takes a subclass of
    ``solverkit.core.game.Game`` with a unique ``name``. Return nothing.
    """


# --- Learning rules --------------------------------------------------------------------------


@hookspec
def register_regret_rules(register):
    """Register regret rules (how stored regrets absorb an iteration's instantaneous regrets).

    Called once when the registry starts. ``register(cls)`` takes a subclass of
    ``solverkit.core.rule.RegretRule`` with a unique ``name``. Return nothing.
    """


@hookspec
def register_averaging(register):
    """Register averaging schemes (the weight of each iteration in the average strategy).

    Called once when the registry starts. ``register(cls)`` takes a subclass of
    ``solverkit.core.averaging.Averaging`` with a unique ``name``. Return nothing.
    """


# --- Storage and distribution ----------------------------------------------------------------


@hookspec
def register_compressors(register):
    """Register compressors (bytes in, bytes out) used by the value store.

    Called once when the registry starts. ``register(cls)`` takes a subclass of
    ``solverkit.core.compressor.Compressor`` with a unique ``name``. Return nothing.
    """


@hookspec
def register_transports(register):
    """Register transports (how a pass over a game's subgames is carried out).

    Called once when the registry starts. ``register(cls)`` takes a subclass of
    ``solverkit.core.transport.Transport`` with a unique ``name``. Return nothing.
    """
