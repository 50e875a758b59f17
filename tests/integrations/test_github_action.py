"""The composite GitHub Action (``action.yml``): its steps run here the way a runner runs
them."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

EXPR = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def _action() -> dict[str, Any]:
    action: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return action


def _run_action(inputs: dict[str, str], workdir: Path, runner_temp: Path) -> tuple[int, str]:
    """Run the composite steps as a runner does: inputs with their defaults, expressions
    only in each step's ``env``, each script under ``bash -e {0}``-like settings."""
    action = _action()
    values = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    values.update(inputs)
    context = {f"inputs.{k}": v for k, v in values.items()}
    context["github.action_path"] = str(ROOT)
    output_file = runner_temp / "github_output"
    output_file.write_text("")
    code, out = 0, ""
    for step in action["runs"]["steps"]:
        assert "${{" not in step["run"], "inputs reach scripts through env only"
        env = {k: EXPR.sub(lambda m: context[m.group(1)], str(v)) for k, v in step["env"].items()}
        env.update(RUNNER_TEMP=str(runner_temp), GITHUB_OUTPUT=str(output_file))
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-c", step["run"]],
            cwd=workdir, env={**os.environ, **env}, capture_output=True, text=True,
            timeout=900, check=False,
        )  # fmt: skip
        out += proc.stdout + proc.stderr
        code = proc.returncode
        if code != 0:
            break
    return code, out + "\n" + output_file.read_text()


@pytest.fixture(scope="module")
def runner_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runner")


def test_action_check_writes_sarif(project: Path, runner_temp: Path) -> None:
    code, out = _run_action(
        {"paths": "streams", "format": "sarif", "output": "report.sarif"}, project, runner_temp
    )
    assert code == 1, out  # bad.sse has an error
    assert "exit-code=1" in out
    doc = json.loads((project / "report.sarif").read_text())
    results = doc["runs"][0]["results"]
    assert any(r["ruleId"] == "F001" for r in results)


def test_action_arguments_are_arguments_not_shell(project: Path, runner_temp: Path) -> None:
    code, out = _run_action(
        {"paths": "streams/good.sse", "args": "--strict $(touch pwned)", "format": "text"},
        project,
        runner_temp,
    )
    assert not (project / "pwned").exists()
    assert code == 2 and "exit-code=2" in out  # `$(touch` is not a path sseconform can check
    code, out = _run_action({"paths": "streams/good.sse", "format": "text"}, project, runner_temp)
    assert code == 0 and "exit-code=0" in out, out
    code, out = _run_action({"command": "rm", "format": "text"}, project, runner_temp)
    assert code == 2 and "command must be check or gate" in out
    # installed once for the job (the same requirement), not once per use
    marker = runner_temp / "sseconform-venv" / ".sseconform-requirement"
    assert marker.read_text() == str(ROOT)
