"""``python -m sseconform ARGS`` as the tests run it: a child forked from a process that has
imported the command line once, instead of a new interpreter each time.

The suite runs the real command line some thousand times; each new interpreter spends about
0.25 s of CPU importing what every command imports (typer, click, the package) before it
does anything, a quarter of the suite's CPU on a 2-core runner. Here one process per test
process (the *zygote*: ``python -m tests.forked SOCKET``) imports ``sseconform.cli.main``
once and forks a child per command. The child is what a new ``python -m sseconform`` would
be in every way a test can see: its own pid, the given working directory and environment
(replaced, as ``subprocess.run(env=...)`` does), standard input from the given bytes (or
``/dev/null``), standard output and error to files read back after it exits, the module run
as ``__main__`` with the same ``sys.argv``, its exit code (or minus the signal that ended
it), and a timeout that kills it. What a fork cannot honour falls back to a real
subprocess: an environment that changes how the interpreter itself starts (``PYTHON*``, the
locale) or a command other than the module. ``SSECONFORM_TESTS_NO_FORK=1`` runs every
command as a subprocess (to tell a fork's effect from a real one).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Completed", "completed", "run"]

ROOT = Path(__file__).resolve().parent.parent
#: The module ``-m sseconform`` runs (its file: ``sys.argv[0]``), found by the zygote.
_ENTRY = ""
#: Environment variables that change the interpreter's own start: a fork has started already.
_STARTUP = ("PYTHON", "LC_", "LANG")


@dataclass(frozen=True, slots=True)
class Completed:
    """What ``subprocess.run(capture_output=True)`` gives, as far as the tests read it."""

    returncode: int
    stdout: bytes
    stderr: bytes


def run(
    argv: list[str],
    *,
    cwd: str | os.PathLike[str],
    env: dict[str, str] | None,
    stdin: bytes | None,
    timeout: float,
) -> Completed:
    """Run ``argv`` (``[python, -m, sseconform, ...]``) to its end, forked when it can be."""
    env = dict(os.environ) if env is None else env
    args = _module_args(argv)
    if args is None or os.environ.get("SSECONFORM_TESTS_NO_FORK") or not _forkable(env):
        return _subprocess(argv, cwd, env, stdin, timeout)
    return _zygote().run(args, str(cwd), env, stdin, timeout, argv)


def completed(
    argv: list[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
    timeout: float = 120,
    text: bool = False,
) -> subprocess.CompletedProcess[Any]:
    """:func:`run` in ``subprocess.run(argv, capture_output=True, ...)``'s shape, for the
    tests written against it (``text``: decoded as UTF-8)."""
    got = run(argv, cwd=cwd or os.getcwd(), env=env, stdin=input, timeout=timeout)
    if text:
        out, err = got.stdout.decode("utf-8", "replace"), got.stderr.decode("utf-8", "replace")
        return subprocess.CompletedProcess(argv, got.returncode, out, err)
    return subprocess.CompletedProcess(argv, got.returncode, got.stdout, got.stderr)


def _module_args(argv: list[str]) -> list[str] | None:
    """The command's arguments when ``argv`` runs this interpreter's ``-m sseconform`` (or
    its console script beside it), else None."""
    if argv[:3] == [sys.executable, "-m", "sseconform"]:
        return argv[3:]
    script = str(Path(sys.executable).with_name("sseconform"))
    if argv[:1] == [script]:
        return argv[1:]
    return None


def _forkable(env: dict[str, str]) -> bool:
    """Does ``env`` start an interpreter the way the zygote was started?"""
    for k in set(env) | set(os.environ):
        if k.startswith(_STARTUP) and env.get(k) != os.environ.get(k):
            return False
    return True


def _subprocess(
    argv: list[str], cwd: str | os.PathLike[str], env: dict[str, str], stdin: bytes | None,
    timeout: float,
) -> Completed:  # fmt: skip
    proc = subprocess.run(
        argv, cwd=cwd, env=env, input=stdin, capture_output=True, timeout=timeout, check=False,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )  # fmt: skip
    return Completed(proc.returncode, proc.stdout, proc.stderr)


# -- the client side (in the test process) ------------------------------------------------------


class _Client:
    """The test process's zygote: started on first use, ended with the process."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="sseconform-fork-")
        self.path = os.path.join(self.dir, "s")
        env = {k: v for k, v in os.environ.items() if k != "SSECONFORM_DEBUG"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.forked", self.path],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        self.lock = threading.Lock()
        atexit.register(self.stop)

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
            self.proc.wait(5)
        with contextlib.suppress(OSError):
            os.unlink(self.path)
            os.rmdir(self.dir)

    def connect(self) -> socket.socket:
        for _ in range(600):  # the zygote binds once its imports are done (~0.5 s)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.path)
                return sock
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the fork server exited ({self.proc.returncode})") from None
                threading.Event().wait(0.02)
        raise RuntimeError("the fork server did not start")

    def run(
        self, args: list[str], cwd: str, env: dict[str, str], stdin: bytes | None,
        timeout: float, argv: list[str],
    ) -> Completed:  # fmt: skip
        with (
            tempfile.TemporaryFile() as fin,
            tempfile.TemporaryFile() as fout,
            tempfile.TemporaryFile() as ferr,
        ):
            if stdin is not None:
                fin.write(stdin)
                fin.seek(0)
            devnull = os.open(os.devnull, os.O_RDONLY)
            try:
                sock = self.connect()
                with sock:
                    head = json.dumps({"args": args, "cwd": cwd, "env": env}).encode()
                    fds = [fin.fileno() if stdin is not None else devnull, fout.fileno(),
                           ferr.fileno()]  # fmt: skip
                    socket.send_fds(sock, [struct.pack("!I", len(head)) + head], fds)
                    code = self._wait(sock, timeout, argv)
            finally:
                os.close(devnull)
            fout.seek(0)
            ferr.seek(0)
            return Completed(code, fout.read(), ferr.read())

    @staticmethod
    def _wait(sock: socket.socket, timeout: float, argv: list[str]) -> int:
        """The child's pid, then its exit status; past ``timeout`` it is killed and the
        call raises as ``subprocess.run`` does."""
        reader = sock.makefile("rb")
        pid = int(reader.readline())
        sock.settimeout(timeout)
        try:
            line = reader.readline()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            raise subprocess.TimeoutExpired(argv, timeout) from None
        if not line:
            raise RuntimeError("the fork server went away")
        return int(line)


_CLIENT: _Client | None = None
_CLIENT_LOCK = threading.Lock()


def _zygote() -> _Client:
    global _CLIENT
    with _CLIENT_LOCK:
        if _CLIENT is None or _CLIENT.proc.poll() is not None:
            _CLIENT = _Client()
        return _CLIENT


# -- the zygote ---------------------------------------------------------------------------------


def _serve(path: str) -> None:
    """Import the command line, then fork a child per request; each request's connection
    gets the child's pid, then its exit status."""
    import importlib.util
    import runpy  # noqa: F401  (imported before any fork: the children use it)

    from sseconform.cli import main  # noqa: F401  (what every command imports)

    global _ENTRY
    spec = importlib.util.find_spec("sseconform.__main__")
    assert spec is not None and spec.origin is not None
    _ENTRY = spec.origin

    wake_r, wake_w = socket.socketpair()
    wake_r.setblocking(False)
    wake_w.setblocking(False)
    signal.set_wakeup_fd(wake_w.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".tmp")
    os.rename(path + ".tmp", path)  # clients connect once the imports are done
    server.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(server, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    waiting: dict[int, socket.socket] = {}
    while True:
        for key, _ in sel.select():
            if key.fileobj is server:
                conn, _ = server.accept()
                pid = _start(conn, server, wake_r, wake_w)
                if pid is None:
                    conn.close()
                else:
                    waiting[pid] = conn
            else:
                with contextlib.suppress(BlockingIOError):
                    while wake_r.recv(512):
                        pass
        _reap(waiting)


def _reap(waiting: dict[int, socket.socket]) -> None:
    while waiting:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = waiting.pop(pid, None)
        if conn is not None:
            code = os.waitstatus_to_exitcode(status)
            with contextlib.suppress(OSError):
                conn.sendall(f"{code}\n".encode())
            conn.close()


def _start(conn: socket.socket, *closing: socket.socket) -> int | None:
    """Read one request and fork its child; the child never returns."""
    conn.settimeout(10)
    try:
        msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        size = struct.unpack("!I", msg[:4])[0]
        while len(msg) < 4 + size:
            more = conn.recv(1 << 20)
            if not more:
                return None
            msg += more
        req = json.loads(msg[4 : 4 + size])
    except (OSError, ValueError, struct.error):
        return None
    if len(fds) != 3:
        return None
    pid = os.fork()
    if pid == 0:
        try:
            for s in (*closing, conn):
                s.close()
            _child(req, fds)
        finally:
            os._exit(70)
    for fd in fds:
        os.close(fd)
    conn.sendall(f"{pid}\n".encode())
    return pid


def _child(req: dict[str, object], fds: list[int]) -> None:
    """Become ``python -m sseconform ARGS`` in the request's directory and environment."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    cwd = str(req["cwd"])
    os.chdir(cwd)
    env = req["env"]
    assert isinstance(env, dict)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    sys.path[0] = cwd  # what ``-m`` puts first
    args = req["args"]
    assert isinstance(args, list)
    import runpy

    sys.argv = [_ENTRY, *map(str, args)]
    code: object = 0
    try:
        runpy.run_module("sseconform", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # what the interpreter prints for an uncaught exception
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code & 0xFF
    else:
        with contextlib.suppress(Exception):
            print(code, file=sys.stderr, flush=True)
        status = 1
    os._exit(status)


if __name__ == "__main__":
    _serve(sys.argv[1])
