"""Each gateway profile page (docs/profiles/*.md) opens with a ```sh block that installs the
gateway, starts it on 127.0.0.1 and gates it; a newcomer runs it as printed, from a clone with
the README's install done. These tests hold each page to that.

The first test reads the block: its install line is exactly the one expected (the version CI
measures, into a folder of the working directory), the page's title names that version, the
gateway is started from what the install put there, ``sseconform`` is the README's
``.venv/bin/sseconform``, nothing points into CI's caches, and the gate waits for the gateway
(``--wait``).

The second runs the block as one shell session, in a folder laid out as the clone
(``.venv/bin/sseconform`` runs the tool under test, ``tests/`` is the clone's), with only
these changes:

- the install line is replaced by a link to CI's install of the same version (the
  ``$SSECONFORM_*`` folders ``.ci/run`` exports), so no test installs anything;
- the gateway's ports (each one the block names) and the replay upstream's are moved to free
  ones, so that parallel runs cannot collide: ``--upstream-port`` on both ``sseconform gate``
  commands, and the printed config's copy of the gateway's port by ``sed``;
- the gate runs one quick scenario (``--only``) and writes its JSON report, which says whether
  the scenario was graded; the gateway's output goes to a log of its own.

The page's own ``--wait`` is what waits for the gateway. The test asserts that the scenario
was graded (not unreached, not-graded or not applicable) with the exit code its verdict
gives, and that the gateway listens on loopback only; then it stops the gateway (SIGTERM to
the session's process group) and quotes the logs on failure. A page skips when CI's install
is absent; ``SSECONFORM_REQUIRE_*=1`` (as in CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli.helpers import cli_env, venv_shim
from tests.conftest import ROOT
from tests.gate import real
from tests.gate.test_litellm import ENV as LITELLM_OFFLINE

PAGES_DIR = ROOT / "docs" / "profiles"
GATE = ROOT / "tests" / "gate"
#: What a run of the page's gate must not be: the gateway was never really asked.
UNGRADED = ("unreached", "not-graded", "not-applicable")


def _npm_version(folder: str, package: str) -> str:
    data = json.loads((GATE / folder / "package.json").read_text(encoding="utf-8"))
    return str(data["dependencies"][package])


def _litellm_version() -> str:
    found = re.search(r"^\s*local litellm_version=(\S+)", (ROOT / ".ci" / "run").read_text(), re.M)
    assert found, ".ci/run no longer pins LiteLLM's version"
    return found.group(1)


@dataclass(frozen=True)
class Page:
    """A profile page, what its install line must be, and where CI's install of it is."""

    profile: str
    version: str  # the version CI installs and measures
    install: str  # the page's install line, exactly
    folder: str  # where that line installs, in the working folder
    entry: str  # what the page runs of the install, under ``folder``
    variable: str  # CI's install: $SSECONFORM_NAME
    only: str  # the scenario run
    names: str = ""  # what $variable names under CI's install folder ("" : the folder)
    node: bool = False

    @property
    def require(self) -> str:
        return self.variable.replace("SSECONFORM_", "SSECONFORM_REQUIRE_", 1)

    def installed(self) -> Path | None:
        """CI's install folder, when it holds what the page runs."""
        where = os.environ.get(self.variable)
        if not where:
            return None
        folder = Path(where)
        if self.names:
            if not where.endswith("/" + self.names):
                return None
            folder = Path(where[: -len(self.names) - 1])
        return folder if (folder / self.entry).exists() else None


PAGES = (
    Page(
        "litellm", _litellm_version(),
        f"python3 -m venv litellm-venv && litellm-venv/bin/pip install "
        f"'litellm[proxy]=={_litellm_version()}'",
        "litellm-venv", "bin/litellm", "SSECONFORM_LITELLM", "anthropic/text",
        names="bin/litellm",
    ),
    Page(
        "portkey", _npm_version("portkey", "@portkey-ai/gateway"),
        "mkdir -p portkey && cp tests/gate/portkey/package*.json portkey/ "
        "&& (cd portkey && npm ci --ignore-scripts)",
        "portkey", "node_modules/@portkey-ai/gateway/build/start-server.js",
        "SSECONFORM_PORTKEY", "anthropic/text", node=True,
    ),
    Page(
        "claude-code-router", real.pinned(GATE / "ccr" / "install.sh", "CCR_VERSION"),
        "bash tests/gate/ccr/install.sh ccr",
        "ccr", "node_modules/@musistudio/claude-code-router/dist/main/cli.js",
        "SSECONFORM_CCR", "messages/anthropic/text", node=True,
    ),
    Page(
        "claude-code-proxy", real.pinned(GATE / "ccp" / "install.sh", "CCP_VERSION"),
        "bash tests/gate/ccp/install.sh ccp-venv",
        "ccp-venv", "bin/uvicorn", "SSECONFORM_CCP", "messages/anthropic/text",
    ),
    Page(
        "llm-proxy-server", real.pinned(GATE / "lps" / "install.sh", "LPS_VERSION"),
        "bash tests/gate/lps/install.sh lps-venv",
        # openai: the one route whose plain text the proxy sends upstream (lps-known.json)
        "lps-venv", "bin/llm-proxy-server", "SSECONFORM_LPS", "openai/text",
    ),
    Page(
        "lmnr-claude-code-proxy", real.pinned(GATE / "lmnr" / "install.sh", "LMNR_VERSION"),
        "bash tests/gate/lmnr/install.sh lmnr-venv",
        "lmnr-venv", "bin/python", "SSECONFORM_LMNR", "messages/anthropic/text",
    ),
    Page(
        "nullplatform-llm-gateway", _npm_version("nullplatform", "@nullplatform/llm-gateway"),
        "bash tests/gate/nullplatform/install.sh nullplatform",
        "nullplatform", "node_modules/@nullplatform/llm-gateway/dist/cli.js",
        "SSECONFORM_NULLPLATFORM", "anthropic/text", node=True,
    ),
)  # fmt: skip
IDS = [p.profile for p in PAGES]


def _text(page: Page) -> str:
    return (PAGES_DIR / f"{page.profile}.md").read_text(encoding="utf-8")


def commands(page: Page) -> list[str]:
    """The commands of the page's first ```sh block, a line continued with ``\\`` joined to
    the next (as printed: the shell reads them so)."""
    block = re.search(r"^```sh\n(.*?)^```$", _text(page), re.M | re.S)
    assert block, f"{page.profile}: no ```sh block"
    joined = block.group(1).replace("\\\n", "\\\u0000")  # a continuation is one command
    found = [c.replace("\\\u0000", "\\\n") for c in joined.splitlines()]
    return [c for c in found if c.strip() and not c.lstrip().startswith("#")]


def flat(command: str) -> str:
    """A command on one line, its continuations and any comment after it left out."""
    one = re.sub(r"\\\n\s*", " ", command)
    return re.sub(r"\s+#[^'\"]*$", "", one).strip()


def gate_line(cmds: list[str]) -> str:
    gates = [c for c in cmds if " gate --gateway " in c]
    assert len(gates) == 1, cmds
    return gates[0]


def ports(cmds: list[str]) -> list[str]:
    """Every port the block names for the gateway: in its URLs and ``--port`` options."""
    found = re.findall(r"127\.0\.0\.1:(\d+)|--port[= ](\d+)", "\n".join(cmds))
    return sorted({url or option for url, option in found})


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_the_page_installs_what_ci_measures_and_gates_it(page: Page) -> None:
    text = _text(page)
    cmds = commands(page)
    assert flat(cmds[0]) == page.install, f"{page.profile}: the install line changed"
    assert f"{page.version} in CI" in text.splitlines()[0], "the title names another version"
    block = "\n".join(cmds)
    assert f"{page.folder}/{page.entry}" in block, "the gateway is not started from the install"
    assert not re.search(r"(?<![\w/.-])sseconform\b(?!-)", block), "a bare `sseconform`"
    assert gate_line(cmds).startswith(".venv/bin/sseconform gate --gateway http://127.0.0.1:")
    assert "sseconform-ci-" not in block and "TMPDIR" not in block, "CI's caches"
    assert re.search(r" --wait \d+", gate_line(cmds)), "the gate does not wait for the gateway"
    assert ports(cmds), "no port for the gateway"
    background = [c for c in cmds if re.search(r"\s&(\s+#.*)?$", c)]
    assert len(background) == 1, background


def test_every_shipped_profile_has_its_page_here() -> None:
    shipped = {p.stem for p in (ROOT / "sseconform" / "gate" / "profiles").glob("*.toml")}
    assert shipped == {p.stem for p in PAGES_DIR.glob("*.md")} == set(IDS)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A clone's folder as the page assumes it: ``.venv/bin/sseconform`` runs the tool under
    test (this tree's), and ``tests/`` is the clone's."""
    venv_shim(tmp_path)
    (tmp_path / "tests").symlink_to(ROOT / "tests", target_is_directory=True)
    return tmp_path


def session(page: Page, ci_install: Path, moved: dict[str, int], upstream: int) -> str:
    """The page's block as a shell script, with the changes the module docstring lists."""
    cmds = commands(page)
    lines = ["set -e", f"ln -s {shlex.quote(str(ci_install))} {page.folder}"]  # the install
    sed = " ".join(f"-e 's/\\b{old}\\b/{new}/g'" for old, new in moved.items())
    for cmd in cmds[1:]:
        for old, new in moved.items():
            cmd = re.sub(rf"\b{old}\b", str(new), cmd)
        if background := re.fullmatch(r"(.*\S)\s+&(?:\s+#.*)?", cmd, re.S):
            cmd = f"{background.group(1)} > gateway.log 2>&1 &"
        elif " --print-gateway-config" in cmd:
            config = re.fullmatch(r"(.*\S)\s+>\s+(\S+)", cmd, re.S)
            assert config, cmd
            printed, file = config.groups()
            cmd = f"{printed} --upstream-port {upstream} > {file} && sed -i {sed} {file}"
        elif " gate --gateway " in cmd:
            cmd += (
                f" --upstream-port {upstream} --only '{page.only}' --out gate-streams"
                " --format json --output gate.json"
            )
        lines.append(cmd)
    return "\n".join(lines) + "\n"


def distinct_free_ports(n: int) -> list[int]:
    found: list[int] = []
    while len(found) < n:
        port = real.free_port()
        if port not in found:
            found.append(port)
    return found


def members(group: int) -> list[int]:
    """The live processes of a process group (Linux /proc; zombies left out)."""
    found = []
    for path in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = path.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[2]) == group:
            found.append(int(path.parent.name))
    return found


def stop(group: int) -> None:
    """SIGTERM to every process the session left (the gateway), then SIGKILL after 20 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 20
        while members(group) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not members(group):
            return


def tail(path: Path) -> str:
    text = path.read_text(errors="replace") if path.is_file() else "(none)"
    return f"== {path.name}:\n{text[-4000:]}"


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_the_page_s_block_gates_its_gateway(page: Page, folder: Path) -> None:
    if page.node:
        real.need(shutil.which("node"), page.require, "node")
    ci_install = real.need(page.installed(), page.require, f"{page.profile} (${page.variable})")
    cmds = commands(page)
    old = ports(cmds)
    *new, upstream = distinct_free_ports(len(old) + 1)
    moved = dict(zip(old, new, strict=True))
    script = session(page, ci_install, moved, upstream)
    # LiteLLM (and the one inside claude-code-proxy) reads its tables from the package, not
    # the network: nothing leaves 127.0.0.1
    env = {**cli_env(), **real.NO_PROXY, **LITELLM_OFFLINE}
    log = folder / "session.log"
    started = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            ["sh", "-c", script], cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            code = proc.wait(timeout=600)
            listen = {port: real.listening(port) for port in moved.values()}
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            stop(proc.pid)  # the session's process group: the gateway it started
    said = f"{script}\n{tail(log)}\n{tail(folder / 'gateway.log')}"
    report = folder / "gate.json"
    assert report.is_file(), f"the gate wrote no report (exit {code})\n{said}"
    scenarios = json.loads(report.read_text())["scenarios"]
    assert [s["name"] for s in scenarios] == [page.only], said
    s = scenarios[0]
    assert s["verdict"] not in UNGRADED and s["status"] is not None, (s, said)
    assert s["upstream_requests"] >= 1, (s, said)
    assert code == (1 if s["verdict"] in ("fail", "unreached") else 0), (code, said)
    if Path("/proc/net/tcp").is_file():  # every port of the gateway's on loopback only
        assert all(a and all(map(real.loopback, a)) for a in listen.values()), (listen, said)
    print(f"{page.profile}: {s['verdict']} in {time.monotonic() - started:.1f} s")
