"""mkdocs hooks: the pages generated from the code, added to the build (never written to disk).

Rule and grammar pages come from the rule modules (``sseconform.rules.pages``). Each command's
page ends with its ``--help``, as the installed CLI prints it; a command with no guide of its
own in ``docs/commands/`` gets a page of its help alone. The HTML report's guide shows a
screenshot of a real report, made at build time: ``check --format html`` on the bundled
recordings, drawn by headless Chromium (without Chromium the page says so; with
``SSECONFORM_REQUIRE_CHROMIUM=1``, as CI sets, the build fails instead).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # mkdocs loads this file by its path: tools/ is beside docs/
    sys.path.insert(0, str(ROOT))

from tools.chromium import command as chromium_command  # noqa: E402
from tools.chromium import find  # noqa: E402

#: What the screenshot shows: the README's first command, as an HTML page.
REPORTED = ("recordings/chat", "recordings/gateway-bugs")
SCREENSHOT = "guide/html-report.png"
SHOT_SIZE = (1200, 1000)
#: Where the guide wants the screenshot (a line of its own).
SHOT_MARK = "<!-- screenshot -->"


def _commands() -> tuple[str, ...]:
    """Every command the CLI registers, as typed: a new command gets its page unasked."""
    from sseconform.cli.main import app

    return tuple(
        c.name or (c.callback.__name__ if c.callback else "")
        for c in app.registered_commands
        if not c.hidden
    )


COMMANDS = _commands()


def _help(command: str) -> str:
    from typer.testing import CliRunner

    from sseconform.cli.main import app

    env = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    result = CliRunner().invoke(app, [command, "--help"], env=env, prog_name="sseconform")
    return str(result.output).rstrip()


def _options(command: str) -> str:
    return f"## Options\n\n`sseconform {command} --help`:\n\n```text\n{_help(command)}\n```\n"


def on_files(files: Files, config: Any) -> Files:
    from sseconform.gate.pages import gate_pages
    from sseconform.rules.pages import site_pages

    pages = {**site_pages(), **gate_pages()}
    for command in COMMANDS:
        path = f"commands/{command}.md"
        if files.get_file_from_path(path) is None:
            pages[path] = f"# sseconform {command}\n\n"
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    shot = _screenshot()
    if shot is not None:
        files.append(File.generated(config, SCREENSHOT, content=shot))
    return files


def _screenshot() -> bytes | None:
    """A real report (``check --format html`` on ``REPORTED``) drawn by headless Chromium, as
    PNG bytes; None without Chromium."""
    try:
        chromium = find()
    except RuntimeError as exc:
        raise PluginError(str(exc)) from None
    if chromium is None:
        return None
    from typer.testing import CliRunner

    from sseconform.cli.main import app

    with tempfile.TemporaryDirectory(prefix="sseconform-docs-") as tmp:
        report = Path(tmp) / "report.html"
        shot = Path(tmp) / "report.png"
        args = ["check", *REPORTED, "--format", "html", "-o", str(report)]
        old = os.getcwd()
        os.chdir(ROOT)  # the report names the files as the README's command does
        try:
            CliRunner().invoke(app, args, env={"NO_COLOR": "1"}, prog_name="sseconform")
        finally:
            os.chdir(old)
        if not report.is_file():
            raise PluginError(f"sseconform {' '.join(args)} wrote no report")
        width, height = SHOT_SIZE
        done = subprocess.run(
            chromium_command(chromium, f"{tmp}/profile", f"--window-size={width},{height}",
                    f"--screenshot={shot}", report.as_uri()),
            capture_output=True, timeout=120, check=False,
        )  # fmt: skip
        if not shot.is_file():
            raise PluginError(f"Chromium drew no screenshot: {done.stderr[-500:]!r}")
        return shot.read_bytes()


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    path = page.file.src_uri
    if SHOT_MARK in markdown:
        if files.get_file_from_path(SCREENSHOT) is not None:
            shown = (
                f"![`sseconform check {' '.join(REPORTED)} --format html`, in Chromium]"
                f"({Path(SCREENSHOT).name})"
            )
        else:
            shown = "*(This copy of the site was built without Chromium: no screenshot.)*"
        return markdown.replace(SHOT_MARK, shown)
    if path.startswith("commands/") and path.removeprefix("commands/")[:-3] in COMMANDS:
        return markdown.rstrip() + "\n\n" + _options(path.removeprefix("commands/")[:-3])
    return markdown
