# Sourced by .ci/run: a throwaway PostgreSQL on 127.0.0.1, stopped by pg_stop.
# Sets CONVSTATE_TEST_PG_DSN for the tests.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PGDATA=$(mktemp -d)
chown postgres "$PGDATA"
PGPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA" -A trust -U postgres >/dev/null
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w \
  -o "-p $PGPORT -k $PGDATA -c listen_addresses=127.0.0.1" start >/dev/null
export CONVSTATE_TEST_PG_DSN="postgresql://postgres@127.0.0.1:$PGPORT/postgres"
pg_stop() { runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -m fast stop >/dev/null 2>&1 || true; }
