#!/usr/bin/env bash
# Starts what the test-suite needs when it is not already running:
# PostgreSQL (127.0.0.1:5432, trust auth), Redis (127.0.0.1:6379), Debian Chromium.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
apt_updated=0
apt_install() {
    if [ "$(id -u)" != 0 ]; then echo "need root to apt-get install $*" >&2; return 1; fi
    if [ "$apt_updated" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get update -qq; apt_updated=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# PostgreSQL
if ! (have pg_isready && pg_isready -q -h 127.0.0.1 -p 5432); then
    if ! have pg_ctlcluster; then apt_install postgresql; fi
    version="$(ls /etc/postgresql | sort -V | tail -1)"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432

# Redis
if ! (have redis-cli && redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1); then
    if ! have redis-server; then apt_install redis-server; fi
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
        --dir /var/lib/redis --logfile /var/log/redis/ci.log
    for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 0.5; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping

# Chromium for the browser tests (Debian's build; Playwright never downloads one)
if [ ! -x /usr/bin/chromium ]; then apt_install chromium; fi
/usr/bin/chromium --version || true

# docker-compose (the client only) validates docker-compose.yml without an engine
if ! have docker-compose; then apt_install docker-compose || true; fi
