"""Render the CLI reference (``docs/cli.md``) from the click commands themselves.

Regenerate with ``python -m rrmap._cli_docs > docs/cli.md``; a test checks that
the committed file equals this output, so the reference cannot drift.
"""

from __future__ import annotations

import click

from rrmap.cli import main

_WIDTH = 100


def _walk(cmd: click.Command, path: list[str]):
    yield path, cmd
    if isinstance(cmd, click.Group):
        for name in sorted(cmd.commands):
            yield from _walk(cmd.commands[name], [*path, name])


def cli_reference() -> str:
    """Markdown with the ``--help`` text of every rrmap command and sub-command."""
    parts = [
        "# Command-line reference",
        "",
        "Generated from the commands' own `--help` by `python -m rrmap._cli_docs`; "
        "the test suite checks it is up to date.",
        "",
    ]
    for path, cmd in _walk(main, ["rrmap"]):
        settings = {**cmd.context_settings, "terminal_width": _WIDTH, "max_content_width": _WIDTH}
        ctx = click.Context(cmd, info_name=" ".join(path), **settings)
        parts += [f"## `{' '.join(path)}`", "", "```text", cmd.get_help(ctx).rstrip(), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":  # pragma: no cover
    print(cli_reference(), end="")
