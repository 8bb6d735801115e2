#!/bin/sh
# Entry point of localhost/argus-postgres: initialise $PGDATA when empty, then run the server in
# the foreground with any arguments given (e.g. -c fsync=off).
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    # From stdin: a read-only root may have nowhere to write a password file.
    printf '%s\n' "$POSTGRES_PASSWORD" |
      initdb --username=postgres --pwfile=/dev/stdin --auth-local=trust \
        --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
    superuser=scram-sha-256
  else
    initdb --username=postgres --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
    superuser=trust
  fi
  # initdb allows only local connections: the server is reached over the container's network.
  # Without POSTGRES_PASSWORD the superuser gets in without one; every other role (the
  # services' own) must always give its password.
  printf 'host all postgres all %s\nhost all all all scram-sha-256\n' "$superuser" \
    >> "$PGDATA/pg_hba.conf"
fi
# A unix socket where the container can write one (local psql); none on a read-only root.
sockets=/var/run/postgresql
[ -w "$sockets" ] || sockets=
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories="$sockets" "$@"
