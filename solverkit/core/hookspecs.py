"""The plugin hooks of solverkit: one per plugin kind, presets, and command-line commands.

The registering hooks are called with a ``register`` callable when the registry is built: once
at start-up, and again whenever a plugin is added or removed, so such a hook should only call
``register``. A plugin calls ``register(cls)`` for each class it provides; the class's ``name``
attribute is the name users write in config files. ``register_commands(cli)`` is called when the
command line is built. Built-ins use these same hooks. The plugin author's guide, with every
hook's contract, is docs/plugins.md.
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


@hookspec
def register_samplers(register):
    """Register samplers (which part of the game a pass visits: full, or Monte-Carlo CFR).

    Called when the registry is built. ``register(cls)`` takes a subclass of
    ``solverkit.core.sampler.Sampler`` with a unique ``name`` and a ``scheme`` that engines
    implement (``full``, ``chance``, ``external`` or ``outcome``). Return nothing.
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


# --- Card abstraction ------------------------------------------------------------------------


@hookspec
def register_abstractions(register):
    """Register card abstractions (how a poker game's hands are grouped into buckets per round).

    Called when the registry is built. ``register(cls)`` takes a subclass of
    ``solverkit.abstraction.plugin.Abstraction`` with a unique ``name``; configs select it in an
    optional ``[abstraction]`` table, and its ``table(spec)`` returns the BucketTable of a game's
    cards. Return nothing.
    """


# --- Named combinations ----------------------------------------------------------------------


@hookspec
def register_presets(register):
    """Register presets: named combinations of a regret rule, an averaging scheme and an update
    order, which configs select with ``preset = "name"``.

    Called when the registry is built, after the plugin classes. ``register(name, spec)`` takes
    the preset's unique name and a dict with ``rule`` and ``averaging`` (each a registered name,
    or a table ``{"name": ..., <parameters>}``), ``update`` ("alternating" or "simultaneous")
    and an optional one-line ``description``. The names are looked up when a config uses the
    preset. Return nothing.
    """


# --- Command line ----------------------------------------------------------------------------


@hookspec
def register_commands(cli):
    """Add commands to the ``solverkit`` command line.

    Called when the command line is built (the first time ``solverkit`` looks up or lists its
    commands), with ``cli``, the ``click.Group`` of ``solverkit``: decorate functions with
    ``@cli.command()`` (or ``@cli.group()``). A command whose name is already taken is refused
    with a warning; a plugin whose hook raises is reported and skipped, the command line still
    works. Return nothing.
    """
