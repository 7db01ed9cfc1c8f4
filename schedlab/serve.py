"""``python -m schedlab.serve``: N Daphne processes on one port, a listening socket each.

One Daphne process is one Python interpreter: it serves on one core at most.
This starts ``--processes`` Daphne children (``daphne --fd``), each on a
listening socket of its own bound to the same address with ``SO_REUSEPORT``,
so the kernel spreads new connections over the processes evenly (by a hash of
the connection's addresses) whichever is busy. A child's socket listens only
once the child has loaded the application, so no connection waits on a
process that is still starting. A child that dies takes its socket with it
and the others get every new connection until it is started again (1 s later,
doubling up to 30 s while it keeps dying within a minute), on a new socket.
SIGTERM or SIGINT stops them all (SIGTERM each, SIGKILL after 30 s) and exits
0. Where ``SO_REUSEPORT`` is unavailable (or with ``--shared-socket``) the
children accept from one socket, as the log says.

    python -m schedlab.serve --processes 2 --bind 0.0.0.0 --port 8000 \\
        --proxy-headers --verbosity 0 schedlab.asgi:application

Every other argument goes to each Daphne unchanged. ``--processes`` defaults
to ``SCHEDLAB_WEB_PROCESSES`` (else 1). Each child gets a PostgreSQL connection
pool of ``--db-pool`` connections (``DATABASE_POOL_SIZE``, else 10; 0: none):
under ASGI each request runs in a thread of its own, and without a pool each
kept a connection open. Why processes, how many, the sockets and the pool:
``docs/deployment.md``.
"""

from __future__ import annotations

import argparse
import errno
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

__all__ = ["main", "parse_args"]

STOP_SECONDS = 30.0
BACKLOG = 1024
CHILD = "--listen-fd"  # how the supervisor starts a child on its own socket (not for people)
MAX_DELAY = 30.0
HEALTHY_SECONDS = 60.0  # a child that ran this long has its restart delay reset


def parse_args(argv: Sequence[str] | None = None) -> tuple[argparse.Namespace, list[str]]:
    ap = argparse.ArgumentParser(
        prog="python -m schedlab.serve", description=__doc__.split("\n")[0]
    )
    default = os.environ.get("SCHEDLAB_WEB_PROCESSES", "1")
    ap.add_argument("--processes", type=int, default=int(default), help="Daphne processes")
    pool = os.environ.get("DATABASE_POOL_SIZE", "10")
    ap.add_argument("--db-pool", type=int, default=int(pool), help="connections per process")
    ap.add_argument("-b", "--bind", default="127.0.0.1")
    ap.add_argument("-p", "--port", type=int, default=8000)
    ap.add_argument(
        "--shared-socket",
        action="store_true",
        help="one listening socket for every process, as where SO_REUSEPORT is unavailable",
    )
    args, daphne_args = ap.parse_known_args(argv)
    if args.processes < 1:
        ap.error("--processes must be at least 1")
    if not daphne_args or daphne_args[-1].startswith("-"):
        ap.error("the ASGI application (e.g. schedlab.asgi:application) must come last")
    return args, daphne_args


def _socket(host: str, port: int, *, reuseport: bool) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuseport:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    return sock


def _listen(sock: socket.socket) -> socket.socket:
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


class Sockets:
    """Where the children accept: a listening socket each (``SO_REUSEPORT``), or one for all.

    With ``SO_REUSEPORT`` the supervisor keeps only a bound socket that does not listen (it
    holds the port, and tells which one ``--port 0`` got) and binds a socket for each child
    as it starts it, keeping no copy; the child makes it listen once its application is
    loaded (``_child``). A child that dies takes its socket with it, so no new connection is
    handed to a socket nobody accepts from.
    """

    def __init__(self, host: str, port: int, *, shared: bool) -> None:
        self.host = host
        self.reason = "--shared-socket" if shared else ""
        if not shared and not hasattr(socket, "SO_REUSEPORT"):
            self.reason = "SO_REUSEPORT is not available here"
        if not self.reason:
            try:
                self.anchor = _socket(host, port, reuseport=True)
            except OSError as exc:
                if exc.errno not in (errno.ENOPROTOOPT, errno.EINVAL, errno.EOPNOTSUPP):
                    raise
                self.reason = f"SO_REUSEPORT is not available here ({exc.strerror})"
        if self.reason:
            self.anchor = _listen(_socket(host, port, reuseport=False))
        self.port = self.anchor.getsockname()[1]

    @property
    def shared(self) -> bool:
        return bool(self.reason)

    def for_child(self) -> socket.socket:
        """The socket a child is to accept from (close it after starting the child unless shared)."""
        if self.shared:
            return self.anchor
        sock = _socket(self.host, self.port, reuseport=True)
        sock.set_inheritable(True)
        return sock

    def command(self, fd: int, daphne_args: list[str]) -> list[str]:
        if self.shared:
            return [sys.executable, "-m", "daphne", "--fd", str(fd), *daphne_args]
        return [sys.executable, "-m", "schedlab.serve", CHILD, str(fd), *daphne_args]

    def describe(self, processes: int) -> str:
        where = f"listening on {self.host}:{self.port} with {processes} process(es)"
        if self.shared:
            return f"{where} sharing one socket ({self.reason}): connections spread unevenly"
        return f"{where}, a socket each (SO_REUSEPORT)"


class Supervisor:
    """The children, restarted when they die, stopped together."""

    def __init__(self, sockets: Sockets, count: int, daphne_args: list[str], db_pool: int) -> None:
        self.sockets = sockets
        self.env = {**os.environ, "DATABASE_POOL_SIZE": str(db_pool)}
        self.daphne_args = daphne_args
        self.children: list[subprocess.Popen | None] = [None] * count
        self.started = [0.0] * count
        self.delay = [1.0] * count
        self.due = [0.0] * count  # when a dead child may start again
        self.stopping = False

    def _start(self, i: int) -> None:
        try:
            sock = self.sockets.for_child()
        except OSError as exc:  # the port taken meanwhile: try again later
            self.due[i] = time.monotonic() + self.delay[i]
            _say(
                f"web process {i + 1}: cannot listen ({exc}); trying again in {self.delay[i]:.0f} s"
            )
            return
        fd = sock.fileno()
        command = self.sockets.command(fd, self.daphne_args)
        try:
            self.children[i] = subprocess.Popen(command, pass_fds=(fd,), env=self.env)
        finally:
            if sock is not self.sockets.anchor:
                sock.close()  # the child's own now: it closes when the child dies
        self.started[i] = time.monotonic()
        _say(f"web process {i + 1}/{len(self.children)} started, pid {self.children[i].pid}")

    def run(self) -> int:
        for i in range(len(self.children)):
            self._start(i)
        while not self.stopping:
            now = time.monotonic()
            for i, child in enumerate(self.children):
                if child is not None and child.poll() is not None:
                    ran = now - self.started[i]
                    self.delay[i] = (
                        1.0 if ran >= HEALTHY_SECONDS else min(self.delay[i] * 2, MAX_DELAY)
                    )
                    self.due[i] = now + (1.0 if ran >= HEALTHY_SECONDS else self.delay[i])
                    _say(
                        f"web process {i + 1} (pid {child.pid}) exited with {child.returncode} "
                        f"after {ran:.0f} s; starting it again in {self.due[i] - now:.0f} s"
                    )
                    self.children[i] = None
                if self.children[i] is None and now >= self.due[i] and not self.stopping:
                    self._start(i)
            time.sleep(0.2)
        return self.stop()

    def stop(self) -> int:
        alive = [c for c in self.children if c is not None and c.poll() is None]
        for c in alive:
            c.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for c in alive:
            try:
                c.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                c.kill()
                c.wait()
        _say(f"stopped {len(alive)} web process(es)")
        return 0


def _say(message: str) -> None:
    print(f"schedlab.serve: {message}", file=sys.stderr, flush=True)


def _child(fd: int, daphne_args: list[str]) -> int:
    """Daphne on the bound socket ``fd``, made to listen once the application is loaded."""
    from daphne.cli import CommandLineInterface
    from daphne.server import Server

    class ListenWhenLoaded(Server):
        def run(self) -> None:
            # Daphne's command line has imported the application by now; the reactor starts
            # accepting next. Until here the port's other sockets got every connection.
            sock = socket.socket(fileno=fd)
            sock.listen(BACKLOG)
            sock.detach()  # the fd stays open: Daphne accepts from it
            super().run()

    class Cli(CommandLineInterface):
        server_class = ListenWhenLoaded

    Cli().run(["--fd", str(fd), *daphne_args])
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == [CHILD]:
        return _child(int(argv[1]), argv[2:])
    args, daphne_args = parse_args(argv)
    try:
        sockets = Sockets(args.bind, args.port, shared=args.shared_socket)
    except OSError as exc:
        print(f"schedlab.serve: cannot listen on {args.bind}:{args.port}: {exc}", file=sys.stderr)
        return 2
    supervisor = Supervisor(sockets, args.processes, daphne_args, args.db_pool)

    def stop(signum: int, _frame: object) -> None:
        supervisor.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    _say(sockets.describe(args.processes))
    return supervisor.run()


if __name__ == "__main__":
    raise SystemExit(main())
