"""The ``solverkit`` command group: bad input and warnings as one line each, and the plugins' commands."""

from __future__ import annotations

import errno
import warnings

import click

from . import __version__
from .cli_gc import resume
from .errors import SolverkitError, SolverkitWarning


class _OneLineUsageError(click.ClickException):
    """A usage error shown as the single line ``Error: ...`` (exit status 2), no usage block."""

    exit_code = 2


def _one_line(exc: click.UsageError) -> _OneLineUsageError:
    hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
    return _OneLineUsageError(exc.format_message() + hint)


def _single_line(exc) -> str:
    """An error's text on one line: a message quoting a library's multi-line text stays one line."""
    return " ".join(line.strip() for line in str(exc).splitlines() if line.strip())


class _Group(click.Group):
    """Turns every bad input (SolverkitError, a file the OS refuses, a click usage error) into
    one line ``Error: ...`` on stderr and exit status 2, without a traceback; and adds the
    commands of the plugins of the current registry."""

    _plugin_cache: tuple = (None, -1, {})  # (registry, its generation, commands)

    def plugin_commands(self) -> dict[str, click.Command]:
        """The current registry's plugin commands, collected once per registry build; warnings
        about plugins whose commands were skipped go to stderr then."""
        from .commands import collect
        from .core.registry import get_registry

        reg = get_registry()
        cached_reg, generation, commands = self._plugin_cache
        if cached_reg is not reg or generation != reg.generation:
            commands, warnings = collect(reg, self.commands)
            for line in warnings:
                click.echo(f"warning: {line}", err=True)
            self._plugin_cache = (reg, reg.generation, commands)
        return commands

    def list_commands(self, ctx):
        return sorted({*self.commands, *self.plugin_commands()})

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        finally:  # the command found (the plugins and numba loaded) or refused: the collector on again
            resume()

    def get_command(self, ctx, name):
        plugin = self.plugin_commands()  # built (and its warnings shown) whichever command runs
        return self.commands.get(name) or plugin.get(name)

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx):
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _show_warning
                return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line(exc) from None
        except SolverkitError as exc:
            click.echo(f"Error: {_single_line(exc)}", err=True)
            ctx.exit(2)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise
            click.echo(f"Error: {_single_line(exc)}", err=True)
            ctx.exit(2)
        except MemoryError as exc:  # an input that asks for more than this machine has
            what = f" ({_single_line(exc)})" if str(exc) else ""
            click.echo(f"Error: out of memory{what}: the game, matrix or store asked for is too large for this "
                       "machine; try a smaller one, or [store] backend = \"disk\"", err=True)
            ctx.exit(2)


#: how Python shows a warning (the CLI shows its own as one line)
_python_showwarning = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A SolverkitWarning as one line ``warning: ...`` on stderr (others as Python shows them)."""
    if issubclass(category, SolverkitWarning):
        click.echo(f"warning: {_single_line(message)}", err=True)
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="solverkit")
def cli():
    """Solve imperfect-information games with counterfactual regret minimization."""
