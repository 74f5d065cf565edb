# Start a real Nautobot server for the interop tests (tests/test_interop_nautobot.py).
#
# Source it (". tests/nautobot/serve.sh"): it exports NAUTOBOT_TEST_URL and NAUTOBOT_TEST_TOKEN
# for pytest, and stops the server and its databases when the sourcing shell exits. It installs
# what it needs: PostgreSQL and Redis from Debian's packages where missing, Nautobot from PyPI
# into .venv-nautobot (its own venv: Nautobot pins Django and friends). The database starts
# from the schema Nautobot's migrations produce (schema-nautobot-*.sql.gz, made by
# make_schema.sh): running them takes a quarter of an hour on two cores, loading the result one
# second; NAUTOBOT_TEST_MIGRATE=1 migrates instead and writes that file. Everything listens on 127.0.0.1 or a Unix socket in the state folder.
# A step that fails leaves the variables unset: the Nautobot tests then fail under CI (CI=true)
# and are skipped elsewhere, naming this script.

_nb_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
_nb_version=3.2.7
export NAUTOBOT_TEST_STATE=${NAUTOBOT_TEST_STATE:-/tmp/cluster-designer-nautobot}
export NAUTOBOT_TEST_PG_PORT=${NAUTOBOT_TEST_PG_PORT:-55433}
export NAUTOBOT_TEST_REDIS_PORT=${NAUTOBOT_TEST_REDIS_PORT:-56380}
_nb_http_port=${NAUTOBOT_TEST_HTTP_PORT:-58081}
_nb_pg=/usr/lib/postgresql/15/bin
_nb_server="$_nb_root/.venv-nautobot/bin/nautobot-server"

_nb_log() { echo "nautobot test server: $*" >&2; }

_nb_as_db_user() {  # initdb and postgres refuse to run as root
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

_nb_stop() {
  [ -f "$NAUTOBOT_TEST_STATE/server.pid" ] && kill "$(cat "$NAUTOBOT_TEST_STATE/server.pid")" 2>/dev/null
  [ -f "$NAUTOBOT_TEST_STATE/redis.pid" ] && kill "$(cat "$NAUTOBOT_TEST_STATE/redis.pid")" 2>/dev/null
  [ -d "$NAUTOBOT_TEST_STATE/pg" ] && _nb_as_db_user "$_nb_pg/pg_ctl -D $NAUTOBOT_TEST_STATE/pg -m immediate stop" >/dev/null 2>&1
  return 0
}

_nb_start() {
  if ! command -v redis-server >/dev/null || [ ! -x "$_nb_pg/initdb" ]; then
    _nb_log "installing PostgreSQL 15 and Redis"
    (apt-get update -qq && apt-get install -y -qq postgresql-15 redis-server) >/dev/null 2>&1 || return 1
  fi
  if [ ! -x "$_nb_server" ]; then
    _nb_log "installing Nautobot $_nb_version into .venv-nautobot"
    python3 -m venv "$_nb_root/.venv-nautobot" && \
      "$_nb_root/.venv-nautobot/bin/pip" install -q "nautobot==$_nb_version" >/dev/null 2>&1 || return 1
  fi
  _nb_stop
  rm -rf "$NAUTOBOT_TEST_STATE" && mkdir -p "$NAUTOBOT_TEST_STATE" || return 1
  if [ "$(id -u)" = 0 ]; then chown postgres "$NAUTOBOT_TEST_STATE"; export NAUTOBOT_TEST_DB_USER=postgres;
  else export NAUTOBOT_TEST_DB_USER=$(id -un); fi
  _nb_as_db_user "$_nb_pg/initdb -D $NAUTOBOT_TEST_STATE/pg -A trust -U $NAUTOBOT_TEST_DB_USER" >/dev/null || return 1
  _nb_as_db_user "$_nb_pg/pg_ctl -D $NAUTOBOT_TEST_STATE/pg -l $NAUTOBOT_TEST_STATE/pg.log -w \
    -o \"-k $NAUTOBOT_TEST_STATE -p $NAUTOBOT_TEST_PG_PORT -c listen_addresses=''\" start" >/dev/null || return 1
  local psql="psql -h $NAUTOBOT_TEST_STATE -p $NAUTOBOT_TEST_PG_PORT -U $NAUTOBOT_TEST_DB_USER -q"
  $psql -d postgres -c "CREATE DATABASE nautobot" >/dev/null || return 1
  local schema="$_nb_root/tests/nautobot/schema-nautobot-$_nb_version.sql.gz"
  if [ -z "${NAUTOBOT_TEST_MIGRATE:-}" ]; then
    gunzip -c "$schema" | $psql -d nautobot >/dev/null 2>&1 || return 1
  fi
  redis-server --port "$NAUTOBOT_TEST_REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$NAUTOBOT_TEST_STATE" --daemonize yes --pidfile "$NAUTOBOT_TEST_STATE/redis.pid" >/dev/null || return 1
  export NAUTOBOT_CONFIG="$_nb_root/tests/nautobot/nautobot_config.py" NAUTOBOT_ROOT="$NAUTOBOT_TEST_STATE/root"
  if [ -n "${NAUTOBOT_TEST_MIGRATE:-}" ]; then  # make_schema.sh: migrate, and keep the result
    _nb_log "migrating an empty database with Nautobot $_nb_version (slow)"
    "$_nb_server" migrate >"$NAUTOBOT_TEST_STATE/migrate.log" 2>&1 || return 1
    pg_dump --no-owner --no-privileges -h "$NAUTOBOT_TEST_STATE" -p "$NAUTOBOT_TEST_PG_PORT" -U "$NAUTOBOT_TEST_DB_USER" nautobot \
      | gzip -9 >"$schema" || return 1
  fi
  # A token made up for this throw-away server: it exists nowhere else.
  local token
  token=$(python3 -c "import secrets; print(secrets.token_hex(20))")
  "$_nb_server" shell -c "
from nautobot.users.models import Token, User
user, _ = User.objects.get_or_create(username='cluster-designer-tests', defaults={'is_superuser': True, 'is_staff': True})
Token.objects.create(user=user, key='$token')" >/dev/null 2>&1 || return 1
  nohup "$_nb_server" runserver "127.0.0.1:$_nb_http_port" --noreload >"$NAUTOBOT_TEST_STATE/server.log" 2>&1 &
  echo $! >"$NAUTOBOT_TEST_STATE/server.pid"
  local waited=0
  until python3 -c "import sys, urllib.request as u; u.urlopen(u.Request(sys.argv[1], headers={'Authorization': 'Token ' + sys.argv[2]}), timeout=5)" \
      "http://127.0.0.1:$_nb_http_port/api/status/" "$token" 2>/dev/null; do
    sleep 2; waited=$((waited + 2))
    [ $waited -ge 240 ] && return 1
  done
  export NAUTOBOT_TEST_URL="http://127.0.0.1:$_nb_http_port" NAUTOBOT_TEST_TOKEN="$token"
  _nb_log "ready at $NAUTOBOT_TEST_URL"
}

unset NAUTOBOT_TEST_URL NAUTOBOT_TEST_TOKEN
if ! _nb_start; then
  _nb_log "could not start (see $NAUTOBOT_TEST_STATE); the Nautobot tests will say so"
  _nb_stop
fi
trap _nb_stop EXIT
