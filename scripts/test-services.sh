#!/usr/bin/env bash
# The services the service-backed test suites use, made to answer: PostgreSQL and Redis (started
# as the machine's own services when down) and FerretDB, the MongoDB-wire server the MongoDB
# store is tested against (built from tools/ferretdb/ once, started with SQLite in a temp folder).
# Whatever already answers is left alone. Prints what it started; fails naming the step.
#
#   bash scripts/test-services.sh        # then: TEST_DATABASE_URL=… TEST_REDIS_URL=… TEST_MONGODB_URL=… npm test
set -euo pipefail
cd "$(dirname "$0")/.."

PGURL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
REDISURL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
FERRETDB_VERSION="v1.24.2" # keep in step with tools/ferretdb/go.mod
FERRETDB_ADDR="127.0.0.1:27017"
# Outside the clone, keyed by version and by the tool's own sources: a fresh clone reuses it, a
# change to tools/ferretdb/ rebuilds.
# (test/support/ferretdb.ts finds the binary by the same rule.)
tool_hash="$(cat tools/ferretdb/go.mod tools/ferretdb/go.sum $(LC_ALL=C ls tools/ferretdb/*.go) | sha256sum | cut -c1-12)"
FERRETDB_BIN="${XDG_CACHE_HOME:-$HOME/.cache}/minigame-server/ferretdb-$FERRETDB_VERSION-$tool_hash"

fail() { echo "test-services: FAILED at step '$1': $2" >&2; exit 1; }

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "PostgreSQL is down; starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
  echo "Redis is down; starting it"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no || true
fi
for _ in $(seq 1 30); do
  pg_ok=0; redis_ok=0
  pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null && pg_ok=1
  redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG && redis_ok=1
  [ "$pg_ok$redis_ok" = "11" ] && break
  sleep 1
done
psql "$PGURL" -qtAc 'select 1' >/dev/null || fail "PostgreSQL" "$PGURL does not answer"
redis-cli -u "$REDISURL" ping | grep -q PONG || fail "Redis" "$REDISURL does not answer"
echo "PostgreSQL and Redis answer"

# CI runs two suites at once, and a two-process suite's servers hold about 50 pooled connections
# each at their peak: beyond PostgreSQL's default 100, a run fails with "too many clients" (seen in
# CI). On CI only, the machine's own cluster is given 300 (ALTER SYSTEM, then a restart).
want_connections=300
if [ "${CI:-}" = "true" ]; then
  have="$(psql "$PGURL" -qtAc 'show max_connections' 2>/dev/null || echo 0)"
  if [ "$have" -lt "$want_connections" ] && command -v pg_ctlcluster >/dev/null; then
    echo "PostgreSQL allows $have connections; raising it to $want_connections (restart)"
    if psql "$PGURL" -qtAc "alter system set max_connections = $want_connections" >/dev/null &&
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main restart; then
      for _ in $(seq 1 30); do psql "$PGURL" -qtAc 'select 1' >/dev/null 2>&1 && break; sleep 1; done
    fi
    echo "PostgreSQL allows $(psql "$PGURL" -qtAc 'show max_connections') connections"
  fi
fi

step="FerretDB build"
if [ ! -x "$FERRETDB_BIN" ]; then
  command -v go >/dev/null || fail "$step" "go is not installed (FerretDB is built from its Go module)"
  echo "Building FerretDB $FERRETDB_VERSION into $FERRETDB_BIN (about a minute or two the first time)"
  mkdir -p "$(dirname "$FERRETDB_BIN")"
  # Pure Go (SQLite through modernc.org/sqlite): no cgo. Built to a temp name, so an interrupted
  # build never leaves a half-written binary that the next run would trust.
  (cd tools/ferretdb && CGO_ENABLED=0 GOFLAGS=-trimpath go build -o "$FERRETDB_BIN.tmp" .) ||
    fail "$step" "go build in tools/ferretdb failed (see above; the Go module proxy must serve github.com/FerretDB/FerretDB@$FERRETDB_VERSION)"
  mv "$FERRETDB_BIN.tmp" "$FERRETDB_BIN"
fi

step="FerretDB start"
if "$FERRETDB_BIN" ping "$FERRETDB_ADDR" 2>/dev/null; then
  echo "FerretDB (or another MongoDB-wire server) already answers on $FERRETDB_ADDR; left alone"
else
  if (exec 3<>"/dev/tcp/${FERRETDB_ADDR%:*}/${FERRETDB_ADDR#*:}") 2>/dev/null; then
    fail "$step" "$FERRETDB_ADDR is taken by something that does not answer a MongoDB ping"
  fi
  dir="$(mktemp -d "${TMPDIR:-/tmp}/minigame-ferretdb.XXXXXX")"
  # setsid + nohup: it outlives this script and the CI step that ran it, like the other services.
  setsid nohup "$FERRETDB_BIN" --listen-addr "$FERRETDB_ADDR" --sqlite-dir "$dir" >"$dir/ferretdb.log" 2>&1 </dev/null &
  pid=$!
  for _ in $(seq 1 50); do
    "$FERRETDB_BIN" ping "$FERRETDB_ADDR" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || fail "$step" "FerretDB exited at start: $(tail -n 5 "$dir/ferretdb.log")"
    sleep 0.2
  done
  "$FERRETDB_BIN" ping "$FERRETDB_ADDR" || fail "$step" "FerretDB does not answer a ping on $FERRETDB_ADDR after 10 s (log: $dir/ferretdb.log)"
  echo "Started FerretDB $FERRETDB_VERSION on $FERRETDB_ADDR (pid $pid, SQLite in $dir, log $dir/ferretdb.log)"
fi
echo "FerretDB answers on $FERRETDB_ADDR"
