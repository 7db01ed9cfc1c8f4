#!/usr/bin/env bash
# `make image`: the Schedlab image, on a Debian base built here when no image
# registry is reachable; with --compose also the PostgreSQL and Redis images of
# docker-compose.offline.yml. Needs a Docker daemon (scripts/with-docker.sh).
#
# Environment:
#   IMAGE          the image to build (default schedlab:latest)
#   BASE_IMAGE     its base (default schedlab/debian:bookworm, made by
#                  debian-base.sh if missing; python:3.11-slim-bookworm where
#                  a registry is reachable)
#   BUILD_CA_CERTS PEM files trusted while building only, for a TLS-inspecting
#                  proxy (default: the host's /usr/local/share/ca-certificates/*.crt)
set -euo pipefail
cd "$(dirname "$0")/../.."

local_base=schedlab/debian:bookworm
image=${IMAGE:-schedlab:latest}
base=${BASE_IMAGE:-$local_base}
compose=false
[[ ${1:-} == --compose ]] && compose=true

if [[ $base == "$local_base" ]] || $compose; then
    bash deploy/docker/debian-base.sh "$local_base"
fi

ca=""
# shellcheck disable=SC2086  # a list of paths or globs
for cert in ${BUILD_CA_CERTS-/usr/local/share/ca-certificates/*.crt}; do
    if [[ -f $cert ]]; then
        ca+="$(cat "$cert")"$'\n'
    fi
done

build() { # NAME CONTEXT [DOCKERFILE] [BASE]
    local name=$1 context=$2 dockerfile=${3:-$2/Dockerfile} from=${4:-$base} start=$SECONDS
    echo "build-images: $name (base $from)"
    local log
    log=$(mktemp /tmp/schedlab-build.XXXXXX.log)
    # The classic builder: the one every Docker daemon has (BuildKit may not be installed).
    if ! DOCKER_BUILDKIT=0 docker build --network host --file "$dockerfile" \
        --build-arg BASE_IMAGE="$from" --build-arg EXTRA_CA_CERTS="$ca" \
        --tag "$name" "$context" >"$log" 2>&1; then
        tail -40 "$log" >&2
        echo "build-images: building $name failed (whole log: $log)" >&2
        exit 1
    fi
    rm -f "$log"
    local size
    size=$(docker image inspect -f '{{.Size}}' "$name" | awk '{printf "%.0f MB", $1/1e6}')
    echo "build-images: $name built in $((SECONDS - start)) s, $size"
}

build "$image" . Dockerfile
if $compose; then
    build schedlab/postgres:15 deploy/docker/postgres "" "$local_base"
    build schedlab/redis:7 deploy/docker/redis "" "$local_base"
fi
