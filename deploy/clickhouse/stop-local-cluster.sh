#!/usr/bin/env bash
# Stops the nodes start-local-cluster.sh started under DIR (by the ids in their pid files)
# and waits until they are gone.
set -uo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
for pidfile in "$1"/node*/server.pid; do
  [ -f "$pidfile" ] || continue
  pid="$(cat "$pidfile")"
  kill "$pid" 2>/dev/null || continue
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  rm -f "$pidfile"
done
