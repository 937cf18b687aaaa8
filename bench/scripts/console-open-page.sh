#!/bin/bash
# What an open console page costs at fleet scale: a release `example-bots run` with BOTS idle echo bots on the
# embedded sandbox and "console": true; once /readyz answers 200, alternating 30 s windows with no page and with one
# page's live stream open (`curl -N /console/events`, the first page of 50 as the page asks for it), PAIRS times.
# Prints the process's CPU ticks (utime+stime, 10 ms) per window, and the bytes the stream sent.
BIN=$1; BOTS=${2:-10000}; PAIRS=${3:-3}
D=$(mktemp -d /var/tmp/cbench.XXXX); cd $D
python3 - "$BOTS" > bots.json <<'PY'
import json, sys
n = int(sys.argv[1])
bots = [{"name": f"echo{i:05d}", "kind": "echo", "credentials": {"username": f"echo{i:05d}_bot", "password": f"password-{i:05d}"},
         "friendRequests": "everyone"} for i in range(n)]
print(json.dumps({"server": "sandbox", "httpPort": 0, "console": True, "bots": bots}))
PY
ulimit -n 65536
START=$(date +%s.%N)
$BIN run --sandbox-port 0 > run.out 2> run.err & PID=$!
for t in $(seq 1 600); do PORT=$(grep -o 'Health: http://127.0.0.1:[0-9]*' run.out | cut -d: -f4); [ -n "$PORT" ] && break; sleep 0.5; done
for t in $(seq 1 1200); do [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/readyz)" = 200 ] && break; sleep 0.5; done
echo "bots=$BOTS ready after $(python3 -c "import time; print(round(time.time() - $START, 1))") s"
sleep 10
ticks() { awk '{print $14+$15}' /proc/$PID/stat; }
for i in $(seq 1 $PAIRS); do
  A=$(ticks); sleep 30; B=$(ticks)
  echo "pair $i page=closed ticks_in_30s=$((B-A))"
  curl -sN "http://127.0.0.1:$PORT/console/events?page=1" > events.out & CURL=$!
  A=$(ticks); sleep 30; B=$(ticks)
  kill $CURL; wait $CURL 2>/dev/null
  echo "pair $i page=open ticks_in_30s=$((B-A)) stream_bytes=$(wc -c < events.out) snapshots=$(grep -c '^event: fleet' events.out)"
done
kill -TERM $PID; wait $PID 2>/dev/null; cd /; rm -rf $D
