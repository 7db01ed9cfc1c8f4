#!/usr/bin/env bash
# `make compose-check`: build the images, start the whole production stack,
# use it over HTTP and websockets as a person and a script would, tear it down.
#
# The stack: docker-compose.yml + docker-compose.offline.yml (PostgreSQL and
# Redis built here from Debian's packages) + docker-compose.check.yml (the
# mirror follows the project's wire-protocol Kubernetes API server serving the
# demo GPU cluster). Two workers. The web server is published on a free port
# of 127.0.0.1; the checks in scripts/compose_check/client.py run in a
# throw-away container of the image on the host's network, as a browser would.
#
# Needs a Docker daemon (scripts/with-docker.sh starts one) and docker-compose
# (installed from Debian's packages when missing). Leaves nothing running: the
# project's containers, networks and volumes are removed whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'compose-check: %s\n' "$*"; }
fail() {
    printf 'compose-check: FAILED: %s\n' "$*" >&2
    exit 1
}
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

if ! command -v docker-compose >/dev/null; then
    [[ $(id -u) -eq 0 ]] || fail "docker-compose is missing (apt-get install docker-compose)"
    say "installing Debian's docker-compose"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
fi

t_all=$(date +%s.%N)
export SCHEDLAB_IMAGE=${SCHEDLAB_IMAGE:-schedlab:latest}
t=$(date +%s.%N)
IMAGE=$SCHEDLAB_IMAGE bash deploy/docker/build-images.sh --compose
build_seconds=$(elapsed "$t")

# One project per run: its own network and volumes, nothing shared with a
# stack someone else runs here.
export COMPOSE_PROJECT_NAME=schedlab-check-$$
export DJANGO_SECRET_KEY
DJANGO_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')
export POSTGRES_PASSWORD
POSTGRES_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
export SCHEDLAB_PORT
SCHEDLAB_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export SCHEDLAB_BIND=127.0.0.1 DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost
export SCHEDLAB_CLUSTER=demo-live KUBECONFIG_DIR=./scripts/compose_check/kube KUBE_CONTEXT=
compose=(docker-compose -f docker-compose.yml -f docker-compose.offline.yml -f docker-compose.check.yml)
logs=$(mktemp -d /tmp/schedlab-compose-check.XXXXXX)

teardown() {
    local status=$?
    trap - EXIT INT TERM
    if [[ $status -ne 0 ]]; then
        "${compose[@]}" ps >&2 || true
        "${compose[@]}" logs --no-color --tail=40 >&2 || true
    fi
    say "tearing down $COMPOSE_PROJECT_NAME"
    "${compose[@]}" down --volumes --remove-orphans --timeout 20 >/dev/null 2>&1 || true
    local left
    left=$(docker ps -aq --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")
    if [[ -n $left ]]; then
        echo "compose-check: containers left behind: $left" >&2
        status=1
    fi
    if docker network ls -q --filter "name=${COMPOSE_PROJECT_NAME}_" | grep -q .; then
        echo "compose-check: a network was left behind" >&2
        status=1
    fi
    if docker volume ls -q --filter "name=${COMPOSE_PROJECT_NAME}_" | grep -q .; then
        echo "compose-check: a volume was left behind" >&2
        status=1
    fi
    rm -rf "$logs"
    exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT TERM

say "deployment checks in the image"
docker run --rm -e DJANGO_SECRET_KEY -e DJANGO_ALLOWED_HOSTS=schedlab.example \
    -e DATABASE_URL=postgres://x@127.0.0.1:9/x -e REDIS_URL=redis://127.0.0.1:9/0 \
    "$SCHEDLAB_IMAGE" python manage.py check --deploy --fail-level WARNING >/dev/null ||
    fail "check --deploy is not clean in $SCHEDLAB_IMAGE"
refusal=$(docker run --rm -e DJANGO_SECRET_KEY=change-me-in-production "$SCHEDLAB_IMAGE" \
    daphne schedlab.asgi:application 2>&1 >/dev/null) && fail "a published key was accepted"
[[ $refusal == "schedlab: production settings refused: DJANGO_SECRET_KEY is a published default"* ]] ||
    fail "unexpected refusal: $refusal"

say "starting $COMPOSE_PROJECT_NAME (web on 127.0.0.1:$SCHEDLAB_PORT, 2 workers)"
t_up=$(date +%s.%N)
"${compose[@]}" up -d --scale worker=2 >"$logs/up.log" 2>&1 || {
    cat "$logs/up.log" >&2
    fail "docker-compose up"
}

# Healthy: every service with a health check says so; migrate exited 0.
deadline=$((SECONDS + 240))
while :; do
    pending=()
    for id in $("${compose[@]}" ps -q); do
        read -r name state health code < <(docker inspect -f \
            '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.State.ExitCode}}' "$id")
        case "$name" in
            *_migrate_*) [[ $state == exited && $code == 0 ]] || pending+=("$name:$state") ;;
            *) [[ $state == running && $health == healthy ]] || pending+=("$name:$state/$health") ;;
        esac
        [[ $state == exited && $code != 0 ]] && fail "$name exited with status $code"
    done
    [[ ${#pending[@]} -eq 0 ]] && break
    ((SECONDS < deadline)) || fail "not healthy within 240 s: ${pending[*]}"
    sleep 1
done
startup_seconds=$(elapsed "$t_up")
[[ $("${compose[@]}" ps -q worker | wc -l) -eq 2 ]] || fail "expected 2 workers"
say "stack healthy in ${startup_seconds} s: $("${compose[@]}" ps --services | sort | tr '\n' ' ')"

nodes=$("${compose[@]}" exec -T worker celery -A schedlab inspect ping --timeout 5 2>/dev/null |
    grep -c '^->' || true)
[[ $nodes -eq 2 ]] || fail "celery inspect ping: $nodes worker node(s) answered, expected 2"

password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(16))')
"${compose[@]}" exec -T -e DJANGO_SUPERUSER_PASSWORD="$password" web \
    python manage.py createsuperuser --noinput --username checker \
    --email checker@schedlab.example >/dev/null

say "logging in, mirror, websockets, a dry-run through the REST API"
facts=$(docker run --rm --network host -v "$PWD/scripts/compose_check:/check:ro" \
    "$SCHEDLAB_IMAGE" python /check/client.py --url "http://127.0.0.1:$SCHEDLAB_PORT" \
    --user checker --password "$password") || fail "the client's checks"

# Which worker ran the dry-run: exactly one task success, in one worker's log.
"${compose[@]}" logs --no-color worker >"$logs/worker.log"
grep -E 'Task dryruns\.run\[[^]]+\] succeeded' "$logs/worker.log" >"$logs/ran.log" || true
[[ $(wc -l <"$logs/ran.log") -eq 1 ]] ||
    fail "expected one dryruns.run success in the workers' logs, found $(wc -l <"$logs/ran.log")"
ran_on=$(cut -d' ' -f1 "$logs/ran.log")

# Every log line of the long-running services is a JSON object (migrate's
# output is the command's report of what it applied, for people).
for service in web worker mirror; do
    "${compose[@]}" logs --no-color "$service" | grep -E '^[^ ]+ +\|' | sed -E 's/^[^|]*\| ?//' |
        grep -v '^$' |
        python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
bad = [line for line in lines if not line.startswith("{")]
for line in lines:
    if line.startswith("{"):
        json.loads(line)
if bad:
    sys.exit(f"{len(bad)} of {len(lines)} lines are not JSON, e.g. {bad[0]!r}")
' || fail "$service logs are not JSON lines"
done

total_seconds=$(elapsed "$t_all")
python3 - "$facts" "$build_seconds" "$startup_seconds" "$total_seconds" "$ran_on" "$SCHEDLAB_IMAGE" <<'PY'
import json, subprocess, sys

facts, build, startup, total, ran_on, image = sys.argv[1:]
size = int(subprocess.check_output(["docker", "image", "inspect", "-f", "{{.Size}}", image]))
summary = {
    "image": image,
    "image_size_mb": round(size / 1e6),
    "build_seconds": float(build),
    "startup_seconds": float(startup),
    **json.loads(facts),
    "dry_run_worker": ran_on,
    "total_seconds": float(total),
}
print(json.dumps(summary, indent=2))
PY
say "passed"
