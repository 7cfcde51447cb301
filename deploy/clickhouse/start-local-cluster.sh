#!/usr/bin/env bash
# Starts the two-node local ClickHouse cluster `analytics` (see cluster.xml) under DIR, bound
# to 127.0.0.1 only: node 1 http 8123 / tcp 9000 / interserver 9009, node 2 http 8124 /
# tcp 9001 / interserver 9010. Waits until both answer. Stop it with stop-local-cluster.sh DIR.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$1"
dir="$(cd "$1" && pwd)"
server="$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)"

start_node() {
  local name=$1 http=$2 tcp=$3 interserver=$4
  local node="$dir/$name"
  mkdir -p "$node/data" "$node/tmp" "$node/user_files" "$node/format_schemas" "$node/config.d"
  sed -e "s#@DIR@#$node#g" -e "s#@HTTP_PORT@#$http#g" -e "s#@TCP_PORT@#$tcp#g" \
    -e "s#@INTERSERVER_PORT@#$interserver#g" "$here/node.xml" >"$node/config.xml"
  cp "$here/users.xml" "$node/users.xml"
  cp "$here/cluster.xml" "$node/config.d/cluster.xml"
  "$server" --config-file="$node/config.xml" --pid-file="$node/server.pid" --daemon
}

wait_node() {
  local name=$1 http=$2
  for _ in $(seq 1 120); do
    if [ "$(curl -fsS "http://127.0.0.1:$http/ping" 2>/dev/null)" = "Ok." ]; then return 0; fi
    sleep 0.5
  done
  echo "ClickHouse $name did not answer on port $http; see $dir/$name/server.err.log" >&2
  return 1
}

start_node node1 8123 9000 9009
start_node node2 8124 9001 9010
wait_node node1 8123
wait_node node2 8124
echo "ClickHouse cluster 'analytics' is up: http://127.0.0.1:8123,http://127.0.0.1:8124"
