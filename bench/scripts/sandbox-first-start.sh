#!/bin/bash
# How long a release `example-bots run` with BOTS idle echo bots on the embedded sandbox takes to come up: started
# twice on a fresh data directory (the first start creates the sandbox accounts and friendships; the second finds
# them and signs each account in once to check its password). For each start prints when the health port appeared
# (the sandbox is seeded by then), when /readyz first answered 200 (every bot live), and the process's CPU ticks
# (utime+stime, 10 ms) at both moments.
BIN=$1; BOTS=${2:-1000}
D=$(mktemp -d /var/tmp/cbench.XXXX); cd $D
python3 - "$BOTS" > bots.json <<'PY'
import json, sys
n = int(sys.argv[1])
bots = [{"name": f"echo{i:05d}", "kind": "echo", "credentials": {"username": f"echo{i:05d}_bot", "password": f"password-{i:05d}"},
         "friendRequests": "everyone"} for i in range(n)]
print(json.dumps({"server": "sandbox", "httpPort": 0, "console": True, "bots": bots}))
PY
ulimit -n 65536 2>/dev/null
since() { python3 -c "import time; print(round(time.time() - $1, 1))"; }
for START_KIND in first second; do
  START=$(date +%s.%N)
  $BIN run --sandbox-port 0 > run.out 2> run.err & PID=$!
  ticks() { awk '{print $14+$15}' /proc/$PID/stat; }
  for t in $(seq 1 6000); do PORT=$(grep -o 'Health: http://127.0.0.1:[0-9]*' run.out | cut -d: -f4); [ -n "$PORT" ] && break; sleep 0.1; done
  SEEDED=$(since $START); SEED_TICKS=$(ticks)
  for t in $(seq 1 12000); do [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/readyz)" = 200 ] && break; sleep 0.1; done
  echo "bots=$BOTS start=$START_KIND seeded_after=${SEEDED}s ticks=$SEED_TICKS ready_after=$(since $START)s ticks=$(ticks)"
  kill -TERM $PID; wait $PID 2>/dev/null
done
cd /; rm -rf $D
