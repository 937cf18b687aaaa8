#!/bin/bash
# Idle CPU of `example-bots run` (release) with 100 echo bots on the embedded sandbox, console on vs off:
# alternating pairs; CPU ticks (utime+stime, 10 ms) of the process over 30 s once /readyz answers 200.
BIN=$1; PAIRS=${2:-3}
for i in $(seq 1 $PAIRS); do
  for console in true false; do
    D=$(mktemp -d /var/tmp/cbench.XXXX); cd $D
    python3 - "$console" > bots.json <<'PY'
import json, sys
bots = [{"name": f"echo{i:03d}", "kind": "echo", "credentials": {"username": f"echo{i:03d}_bot", "password": f"password-{i:03d}"},
         "friendRequests": "everyone"} for i in range(100)]
print(json.dumps({"server": "sandbox", "httpPort": 0, "console": sys.argv[1] == "true", "sendPacing": "off", "bots": bots}))
PY
    $BIN run --sandbox-port 0 > run.out 2> run.err & PID=$!
    for t in $(seq 1 120); do PORT=$(grep -o 'Health: http://127.0.0.1:[0-9]*' run.out | cut -d: -f4); [ -n "$PORT" ] && break; sleep 0.5; done
    for t in $(seq 1 240); do [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/readyz)" = 200 ] && break; sleep 0.5; done
    sleep 5
    A=$(awk '{print $14+$15}' /proc/$PID/stat); sleep 30; B=$(awk '{print $14+$15}' /proc/$PID/stat)
    echo "pair $i console=$console ticks_in_30s=$((B-A)) pct=$(python3 -c "print(round(($B-$A)/30.0,3))")%"
    kill -TERM $PID; wait $PID 2>/dev/null; cd /; rm -rf $D
  done
done
