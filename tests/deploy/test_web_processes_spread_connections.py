"""`python -m schedlab.serve`: N Daphne processes on one port, a listening socket each
(SO_REUSEPORT), so fresh connections reach every process; a dead one comes back on a new
socket. With --shared-socket (the fallback where SO_REUSEPORT is unavailable) they accept
from one socket.

Which process serves a connection is read off the kernel (/proc/net/tcp: the server side
of the connection, by port, and the process whose descriptor it is), not reported by the
server itself."""

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
from collections import Counter
from pathlib import Path

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
    def __init__(
        self, processes: int, *extra: str, app: str = "schedlab.asgi:application", **env_extra: str
    ) -> None:
        self.port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LOG_"))}
        env["DJANGO_SETTINGS_MODULE"] = "schedlab.settings.test"
        env.update(env_extra)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "schedlab.serve", "--processes", str(processes)]
            + [*extra, "--port", str(self.port), "--verbosity", "0", app],
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
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:  # gone
        return out
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:"):
            out.add(target)
    return out


LISTEN, ESTABLISHED = "0A", "01"


def _tcp(port: int, state: str, remote_port: int = 0) -> set[str]:
    """The sockets (``socket:[inode]``) on 127.0.0.1:``port`` in ``state``, from the kernel."""
    found = set()
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            local, remote, st, inode = fields[1], fields[2], fields[3], fields[9]
            if int(local.split(":")[1], 16) != port or st != state:
                continue
            if remote_port and int(remote.split(":")[1], 16) != remote_port:
                continue
            found.add(f"socket:[{inode}]")
    return found


def _listening(port: int, pids: list[int]) -> dict[int, set[str]]:
    """Per process, the listening sockets on ``port`` it holds."""
    listening = _tcp(port, LISTEN)
    return {pid: _sockets(pid) & listening for pid in pids}


def _served_by(serve: _Serve, connections: int) -> Counter:
    """Which child accepted each of ``connections`` fresh connections (each asks /livez)."""
    port = serve.port
    served: Counter = Counter()
    for _ in range(connections):
        with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
            conn.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert conn.recv(65536).startswith(b"HTTP/1.1 200"), "no answer"
            # answered and still open (keep-alive): its server side is in one process
            server_side = _tcp(port, ESTABLISHED, remote_port=conn.getsockname()[1])
            # every child ever started: one restarted meanwhile may be the one that answered
            pids = {int(m[1]) for m in re.finditer(r"started, pid (\d+)", "".join(serve.lines))}
            owners = [pid for pid in pids if _sockets(pid) & server_side]
            assert len(owners) == 1, (server_side, owners)
            served[owners[0]] += 1
    return served


def test_each_process_has_its_own_socket_and_fresh_connections_reach_both():
    serve = _Serve(processes=2)
    try:
        first = _wait_for(lambda: len(serve.children()) == 2 and serve.children(), 60, "2 children")
        assert any("a socket each (SO_REUSEPORT)" in x for x in serve.lines), serve.lines
        pids = [serve.proc.pid, first[1], first[2]]
        # each listens once it has loaded the application
        held = _wait_for(
            lambda: all(_listening(serve.port, pids[1:]).values()) and _listening(serve.port, pids),
            120,
            "both children listening",
        )
        # one listening socket per child, not the same one; the supervisor listens on none
        assert len(held[first[1]]) == 1 and len(held[first[2]]) == 1, held
        assert held[first[1]] != held[first[2]] and not held[serve.proc.pid], held
        # 40 fresh connections all on one of two sockets: 2 in 2**40 if the hash is even
        served = _served_by(serve, 40)
        assert served[first[1]] > 0 and served[first[2]] > 0, served

        os.kill(first[1], signal.SIGKILL)
        _wait_for(
            lambda: any("web process 1 " in x and "exited with -9" in x for x in serve.lines),
            60,
            "the supervisor saw the child die",
        )
        # its socket went with it: every fresh connection is answered, by a live process
        served = _served_by(serve, 10)
        assert first[1] not in served and sum(served.values()) == 10, served
        again = _wait_for(
            lambda: serve.children().get(1) not in (None, first[1]) and serve.children(),
            60,
            "child 1 started again",
        )
        assert again[2] == first[2] and _alive(again[2])  # the other one was left alone
        _wait_for(
            lambda: _listening(serve.port, [again[1]])[again[1]],
            120,
            "the new child listening, once it has loaded the application",
        )
        now = _listening(serve.port, [again[1], again[2]])
        assert len(now[again[1]]) == 1 and now[again[1]] != held[first[1]], (held, now)
        assert now[again[2]] == held[first[2]], (held, now)
        served = _served_by(serve, 40)
        assert served[again[1]] > 0 and served[again[2]] > 0, served
    finally:
        code = serve.stop()
    assert code == 0, "".join(serve.lines)
    assert not any(_alive(pid) for pid in (*first.values(), *again.values()))
    assert "stopped 2 web process(es)" in "".join(serve.lines)


def test_a_process_takes_connections_only_once_its_application_is_loaded(tmp_path):
    gate = tmp_path / "gate"
    serve = _Serve(2, app="tests.deploy.gated_asgi:application", SCHEDLAB_TEST_GATE=str(gate))
    try:
        first = _wait_for(lambda: len(serve.children()) == 2 and serve.children(), 60, "2 children")
        _wait_for(
            lambda: all(Path(f"{gate}.{pid}").exists() for pid in first.values()),
            120,
            "both children waiting at the gate, their application not loaded",
        )
        # bound but not listening: the port refuses rather than queueing for a loading process
        assert not any(_listening(serve.port, [serve.proc.pid, *first.values()]).values())
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", serve.port), timeout=10).close()

        gate.touch()
        _wait_for(lambda: _livez(serve.port), 120, "GET /livez answered once loaded")
        _wait_for(
            lambda: all(_listening(serve.port, list(first.values())).values()),
            60,
            "both children listening",
        )
    finally:
        code = serve.stop()
    assert code == 0, "".join(serve.lines)


def test_with_a_shared_socket_both_accept_from_the_supervisors_one():
    serve = _Serve(2, "--shared-socket")
    try:
        first = _wait_for(lambda: len(serve.children()) == 2 and serve.children(), 60, "2 children")
        _wait_for(lambda: _livez(serve.port), 120, "GET /livez answered")
        assert any("sharing one socket (--shared-socket)" in x for x in serve.lines), serve.lines
        held = _listening(serve.port, [serve.proc.pid, first[1], first[2]])
        assert len(held[serve.proc.pid]) == 1, held
        assert held[first[1]] == held[first[2]] == held[serve.proc.pid], held

        os.kill(first[1], signal.SIGKILL)
        again = _wait_for(
            lambda: serve.children().get(1) not in (None, first[1]) and serve.children(),
            60,
            "child 1 started again",
        )
        _wait_for(lambda: _alive(again[1]) and _livez(serve.port), 60, "the new child serves")
        assert _listening(serve.port, [again[1]])[again[1]] == held[first[2]]
    finally:
        code = serve.stop()
    assert code == 0, "".join(serve.lines)
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
