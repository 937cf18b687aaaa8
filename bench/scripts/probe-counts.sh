#!/bin/bash
# Calls a message costs the Swift fleet at 1,000 msg/s, counted rather than timed (counts do not move with the
# machine's pace): swift_retain, swift_release, swift_allocObject, glibc's malloc and sqlite3_step, with `perf probe`
# uprobes and `perf stat` on the fleet for 10 s of `latency --rate 1000 --swift-only` (10,000 messages). Needs root
# and perf. Usage: probe-counts.sh BINARY [PAIRED_BINARY] [PAIRS]: alternating runs when a second binary is given.
set -u
A=$1; B=${2:-}; PAIRS=${3:-2}
SWIFT_LIB=$(ldd "$A" | awk '/libswiftCore.so/ {print $3}')
LIBC=$(ldd "$A" | awk '/libc.so.6/ {print $3}')
SQLITE=$(ldd "$A" | awk '/libsqlite3.so/ {print $3}')
for f in swift_retain swift_release swift_allocObject; do perf probe -q -x "$SWIFT_LIB" "$f" 2>/dev/null; done
perf probe -q -x "$LIBC" malloc 2>/dev/null
perf probe -q -x "$SQLITE" sqlite3_step 2>/dev/null
EVENTS=probe_libswiftCore:swift_retain,probe_libswiftCore:swift_release,probe_libswiftCore:swift_allocObject
EVENTS=$EVENTS,probe_libc:malloc,probe_libsqlite3:sqlite3_step

count() {
  local bin=$1 out
  out=$(mktemp -d)
  "$bin" latency --rate 1000 --seconds 25 --swift-only --json "$out/latency.json" > "$out/latency.log" 2>&1 &
  local bench=$! fleet=""
  for _ in $(seq 1 120); do fleet=$(pgrep -f "$bin fleet" | head -1); [ -n "$fleet" ] && break; sleep 0.5; done
  [ -n "$fleet" ] || { echo "$bin: the fleet did not start (see $out/latency.log)"; wait $bench; return 1; }
  sleep 8  # past the start-up and the first sync
  printf '%s' "$(basename "$bin")"
  perf stat -x, -e "$EVENTS" -p "$fleet" -- sleep 10 2>&1 |
    awk -F, '$3 ~ /probe_/ { split($3, name, ":"); printf "  %s %.1f", name[2], $1 / 10000 } END { print "  (a message)" }'
  wait $bench
  rm -rf "$out"
}

for i in $(seq 1 "$PAIRS"); do
  count "$A"
  [ -n "$B" ] && count "$B"
  [ -n "$B" ] || break
done
