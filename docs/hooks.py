"""mkdocs hooks: the pages generated from the code, added to the build (never written to disk).

Rule and grammar pages come from the rule modules (``sseconform.rules.pages``). Each command's
page ends with its ``--help``, as the installed CLI prints it; a command with no guide of its
own in ``docs/commands/`` gets a page of its help alone.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

COMMANDS = (
    "check",
    "translate",
    "record",
    "replay",
    "inspect",
    "gate",
    "diff",
    "load",
    "rules",
    "rule",
)


def _help(command: str) -> str:
    from typer.testing import CliRunner

    from sseconform.cli.main import app

    env = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    result = CliRunner().invoke(app, [command, "--help"], env=env, prog_name="sseconform")
    return str(result.output).rstrip()


def _options(command: str) -> str:
    return f"## Options\n\n`sseconform {command} --help`:\n\n```text\n{_help(command)}\n```\n"


def on_files(files: Files, config: Any) -> Files:
    from sseconform.rules.pages import site_pages

    pages = dict(site_pages())
    for command in COMMANDS:
        path = f"commands/{command}.md"
        if files.get_file_from_path(path) is None:
            pages[path] = f"# sseconform {command}\n\n"
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    path = page.file.src_uri
    if path.startswith("commands/") and path.removeprefix("commands/")[:-3] in COMMANDS:
        return markdown.rstrip() + "\n\n" + _options(path.removeprefix("commands/")[:-3])
    return markdown
