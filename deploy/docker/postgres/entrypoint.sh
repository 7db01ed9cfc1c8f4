#!/bin/sh
# First start: initdb with POSTGRES_USER/POSTGRES_PASSWORD, create POSTGRES_DB,
# password (scram) logins over the network. Later starts: run the server.
set -eu

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
    user=${POSTGRES_USER:-postgres}
    db=${POSTGRES_DB:-$user}
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb --username="$user" --pwfile="$pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    if [ "$db" != postgres ]; then
        pg_ctl --wait --options="-c listen_addresses=''" start >/dev/null
        createdb --username="$user" "$db"
        pg_ctl --wait --mode=fast stop >/dev/null
    fi
    echo "postgres-entrypoint: initialised $PGDATA (user $user, database $db)"
fi
exec "$@"
