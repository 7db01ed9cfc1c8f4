#!/bin/sh
# Like the official image: a redis-server started without a config file
# listens on every interface with protected mode off.
set -eu
if [ "${1:-}" = redis-server ]; then
    shift
    case "${1:-}" in
        *.conf) exec redis-server "$@" ;;
    esac
    set -- redis-server --bind '* -::*' --protected-mode no "$@"
fi
exec "$@"
