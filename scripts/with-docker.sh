#!/usr/bin/env bash
# Run a command with a Docker daemon: the one already running, or one started
# here and stopped again when the command ends (whatever its outcome).
#
# On machines without a daemon (CI, sandboxes) it installs Debian's docker.io
# if dockerd is missing and starts `dockerd --iptables=false --bridge=none`:
# no host firewall changes and no default bridge; the stacks it runs use
# their own user-defined networks. SCHEDLAB_DOCKERD_FLAGS replaces those flags.
#
# Usage: scripts/with-docker.sh COMMAND [ARGS...]
set -euo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi

if docker info >/dev/null 2>&1; then
    exec "$@"
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "with-docker: no Docker daemon answers and starting one needs root" >&2
    exit 2
fi
if ! command -v dockerd >/dev/null; then
    echo "with-docker: installing Debian's docker.io"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
if ! command -v docker >/dev/null; then
    echo "with-docker: no docker client on PATH" >&2
    exit 2
fi

log=$(mktemp /tmp/schedlab-dockerd.XXXXXX.log)
# shellcheck disable=SC2086  # the flags are words
dockerd ${SCHEDLAB_DOCKERD_FLAGS:---iptables=false --bridge=none} >"$log" 2>&1 &
dockerd_pid=$!

stop_dockerd() {
    local status=$?
    if kill -0 "$dockerd_pid" 2>/dev/null; then
        echo "with-docker: stopping the Docker daemon it started (pid $dockerd_pid)"
        kill -TERM "$dockerd_pid"
        # dockerd stops its containers and its own containerd before exiting.
        for _ in $(seq 1 60); do
            kill -0 "$dockerd_pid" 2>/dev/null || break
            sleep 1
        done
        if kill -0 "$dockerd_pid" 2>/dev/null; then
            echo "with-docker: dockerd did not stop within 60 s; killing it" >&2
            kill -KILL "$dockerd_pid"
        fi
        wait "$dockerd_pid" 2>/dev/null || true
    fi
    rm -f "$log"
    exit "$status"
}
trap stop_dockerd EXIT
trap 'exit 130' INT TERM

for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1; then
        break
    fi
    if ! kill -0 "$dockerd_pid" 2>/dev/null; then
        echo "with-docker: dockerd exited at start:" >&2
        tail -20 "$log" >&2
        exit 1
    fi
    sleep 0.5
done
docker info >/dev/null 2>&1 || {
    echo "with-docker: dockerd did not answer within 30 s:" >&2
    tail -20 "$log" >&2
    exit 1
}
echo "with-docker: started a Docker daemon (pid $dockerd_pid) for: $*"
"$@"
