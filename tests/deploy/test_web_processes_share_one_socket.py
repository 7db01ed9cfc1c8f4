"""`python -m schedlab.serve`: N Daphne processes accept from one socket; a dead one comes back."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from .support import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(predicate, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"not within {seconds:.0f} s: {what}")


def _livez(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/livez", timeout=5) as resp:
            return resp.status == 200
    except OSError:
        return False


class _Serve:
    def __init__(self, processes: int) -> None:
        self.port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LOG_"))}
        env["DJANGO_SETTINGS_MODULE"] = "schedlab.settings.test"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "schedlab.serve", "--processes", str(processes)]
            + ["--port", str(self.port), "--verbosity", "0", "schedlab.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:  # type: ignore[union-attr]
            self.lines.append(line)

    def children(self) -> dict[int, int]:
        """Process number -> the pid it was last started with."""
        found: dict[int, int] = {}
        for line in list(self.lines):
            m = re.search(r"web process (\d+)/\d+ started, pid (\d+)", line)
            if m:
                found[int(m[1])] = int(m[2])
        return found

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def _sockets(pid: int) -> set[str]:
    out = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:"):
            out.add(target)
    return out


def test_two_processes_serve_one_socket_and_a_killed_one_is_started_again():
    serve = _Serve(processes=2)
    try:
        first = _wait_for(lambda: len(serve.children()) == 2 and serve.children(), 60, "2 children")
        _wait_for(lambda: _livez(serve.port), 120, "GET /livez answered")
        # the supervisor's listening socket is open in both children: one socket, not two ports
        shared = _sockets(first[1]) & _sockets(first[2]) & _sockets(serve.proc.pid)
        assert shared, "no socket shared by the supervisor and both children"

        os.kill(first[1], signal.SIGKILL)
        _wait_for(
            lambda: any("web process 1 " in x and "exited with -9" in x for x in serve.lines),
            60,
            "the supervisor saw the child die",
        )
        _wait_for(lambda: _livez(serve.port), 60, "the other child answers meanwhile")
        again = _wait_for(
            lambda: serve.children().get(1) not in (None, first[1]) and serve.children(),
            60,
            "child 1 started again",
        )
        assert again[2] == first[2] and _alive(again[2])  # the other one was left alone
        _wait_for(lambda: _alive(again[1]) and _livez(serve.port), 60, "the new child serves")
        assert shared <= _sockets(again[1])
    finally:
        code = serve.stop()
    assert code == 0, "".join(serve.lines)
    assert not any(_alive(pid) for pid in (*first.values(), *again.values()))
    assert "stopped 2 web process(es)" in "".join(serve.lines)


def test_it_refuses_zero_processes_in_one_line():
    result = subprocess.run(
        [sys.executable, "-m", "schedlab.serve", "--processes", "0", "schedlab.asgi:application"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--processes must be at least 1" in result.stderr
    assert "Traceback" not in result.stderr
