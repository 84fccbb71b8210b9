#!/usr/bin/env bash
# A local Redis Cluster for tests and load runs: six redis-server processes on
# consecutive ports (three masters, one replica each), made with
# `redis-cli --cluster create`. What an operator runs as separate hosts, here on one.
#
#   tools/redis-cluster/redis-cluster.sh start [BASE_PORT] [DIR]   # default 7000, /tmp/gamehub-redis-cluster
#   tools/redis-cluster/redis-cluster.sh stop  [BASE_PORT] [DIR]
#   tools/redis-cluster/redis-cluster.sh urls  [BASE_PORT]         # REDIS_URL for GAMEHUB_REDIS_CLUSTER=true
#
# The nodes keep an append-only file with fsync every second (as a deployment would),
# and a short cluster-node-timeout (2 s) so a killed master's replica takes over quickly.
# `start` is idempotent: a cluster already answering on BASE_PORT is left as it is.
set -euo pipefail
action=${1:-start}
base=${2:-7000}
dir=${3:-/tmp/gamehub-redis-cluster-$base}
ports=$(seq "$base" $((base + 5)))

urls() {
  local list=""
  for port in $(seq "$base" $((base + 2))); do
    list="${list:+$list,}redis://127.0.0.1:$port"
  done
  echo "$list"
}

case "$action" in
  start)
    if redis-cli -p "$base" cluster info 2>/dev/null | grep -q "cluster_state:ok"; then
      echo "a Redis Cluster already answers on port $base"
      urls
      exit 0
    fi
    mkdir -p "$dir"
    for port in $ports; do
      mkdir -p "$dir/$port"
      rm -f "$dir/$port"/nodes.conf "$dir/$port"/dump.rdb
      rm -rf "$dir/$port"/appendonlydir
      redis-server --port "$port" --bind 127.0.0.1 --daemonize yes \
        --cluster-enabled yes --cluster-config-file "$dir/$port/nodes.conf" \
        --cluster-node-timeout 2000 --appendonly yes --appendfsync everysec \
        --save "" --dir "$dir/$port" --logfile "$dir/$port/redis.log" \
        --pidfile "$dir/$port/redis.pid"
    done
    for port in $ports; do
      for _ in $(seq 1 50); do
        redis-cli -p "$port" ping >/dev/null 2>&1 && break
        sleep 0.1
      done
    done
    nodes=""
    for port in $ports; do nodes="$nodes 127.0.0.1:$port"; done
    # shellcheck disable=SC2086
    redis-cli --cluster create $nodes --cluster-replicas 1 --cluster-yes >"$dir/create.log"
    for _ in $(seq 1 100); do
      ok=1
      for port in $ports; do
        redis-cli -p "$port" cluster info 2>/dev/null | grep -q "cluster_state:ok" || ok=0
      done
      [ "$ok" = 1 ] && break
      sleep 0.2
    done
    [ "$ok" = 1 ] || { echo "the cluster did not become ready"; cat "$dir/create.log"; exit 1; }
    echo "a Redis Cluster answers on ports $base-$((base + 5))"
    urls
    ;;
  stop)
    for port in $ports; do
      redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    done
    rm -rf "$dir"
    ;;
  urls)
    urls
    ;;
  *)
    echo "usage: $0 start|stop|urls [BASE_PORT] [DIR]" >&2
    exit 2
    ;;
esac
