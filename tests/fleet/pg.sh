# A private PostgreSQL cluster for the fleet tests (sourced): initdb in a
# temporary folder, listening on a unix socket in that folder only (no TCP),
# stopped by pg_stop (call it from the test's EXIT trap). As root the
# cluster runs as PG_OWNER (default postgres: initdb refuses root).
#
# pg_find    sets PGBIN to the folder of initdb and pg_ctl; 1 when absent
# pg_start D starts a cluster in D (created); sets PGURL, PGSOCK
# pg_stop    stops it (fast), idempotent
# pg_restart stops it and starts it again on the same data
# psql_q SQL runs one statement, prints the rows unaligned

pg_find() {
  local d
  for d in "${PG_BIN:-}" /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
    [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] &&
      { PGBIN=$d; return 0; }
  done
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null && command -v postgres >/dev/null; then
    PGBIN=$(dirname "$(command -v initdb)")
    return 0
  fi
  return 1
}

pg_as() { # runs a command as the cluster's owner
  if [ "$(id -u)" = 0 ]; then runuser -u "${PG_OWNER:-postgres}" -- "$@"; else "$@"; fi
}

pg_start() {
  PGDIR=$1
  mkdir -p "$PGDIR/data" "$PGDIR/sock"
  [ "$(id -u)" = 0 ] && chown -R "${PG_OWNER:-postgres}" "$PGDIR"
  pg_as "$PGBIN/initdb" -D "$PGDIR/data" -U zkpipe --auth=trust -E UTF8 >"$PGDIR/initdb.log" 2>&1 ||
    { cat "$PGDIR/initdb.log"; return 1; }
  PGSOCK=$PGDIR/sock
  pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/pg.log" -w -t 30 \
    -o "-c listen_addresses='' -c unix_socket_directories='$PGSOCK' -c fsync=off -c max_connections=200" \
    start >/dev/null || { cat "$PGDIR/pg.log"; return 1; }
  PGURL="postgresql:///postgres?host=$PGSOCK&user=zkpipe"
  PG_UP=1
}

pg_stop() {
  [ "${PG_UP:-0}" = 1 ] || return 0
  pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast -w -t 30 stop >/dev/null 2>&1
  PG_UP=0
}

pg_restart() {
  pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast -w -t 30 stop >/dev/null 2>&1
  pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/pg.log" -w -t 30 \
    -o "-c listen_addresses='' -c unix_socket_directories='$PGSOCK' -c fsync=off -c max_connections=200" \
    start >/dev/null
}

psql_q() {
  "$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PGSOCK" -U zkpipe -d postgres -c "$1"
}
