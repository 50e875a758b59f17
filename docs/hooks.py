"""mkdocs hooks: the pages generated from the code, added to the build (never written to disk).

Rule and grammar pages come from the rule modules (``sseconform.rules.pages``); a command's
page is its ``--help``, as the installed CLI prints it.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

COMMANDS = ("check", "translate", "record", "replay", "inspect", "gate", "diff", "load", "rules")


def _help(command: str) -> str:
    from typer.testing import CliRunner

    from sseconform.cli.main import app

    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "100", "NO_COLOR": "1"})
    return result.output


def command_page(command: str) -> str:
    text = _help(command)
    return f"# sseconform {command}\n\n```text\n{text.rstrip()}\n```\n"


def on_files(files: Files, config: Any) -> Files:
    from sseconform.rules.pages import site_pages

    pages = dict(site_pages())
    for command in COMMANDS:
        pages[f"commands/{command}.md"] = command_page(command)
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    return files
