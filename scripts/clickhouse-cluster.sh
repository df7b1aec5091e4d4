#!/usr/bin/env bash
# A two-shard ClickHouse cluster on loopback for dpkit's engine tests and benchmarks.
#
#   scripts/clickhouse-cluster.sh start   start two servers (shard 1: TCP 19001, HTTP 18123;
#                                         shard 2: TCP 19002, HTTP 18124), 127.0.0.1 only, each
#                                         with its own config and data dirs under a temp dir, and
#                                         a `remote_servers` cluster `dpkit` of the two shards
#                                         (no ZooKeeper); prints the HTTP URL of shard 1
#   scripts/clickhouse-cluster.sh stop    stop the servers whose PIDs were recorded, remove the dir
#   scripts/clickhouse-cluster.sh status  exit 0 when both answer /ping
#
# State (PIDs, configs, data, logs) lives in $DPKIT_CH_DIR (default /tmp/dpkit-clickhouse-$UID).
# Tables are created by the tests (a MergeTree table on each shard, a Distributed table over them).
# Users (no password, 127.0.0.1 only): `default`, and two whose profiles set what a warehouse's
# analyst profile may set, for the engine tests that dpkit overrides it: `dpkit_lenient` (extremes,
# approximate count(DISTINCT), unmerged per-shard results, no row for an empty aggregate, skipped
# shards), `dpkit_limited` (limits with overflow mode break / any) and `dpkit_readonly` (readonly=1,
# no setting may be changed). `start` on a running cluster
# rewrites the users file (the servers reload it within seconds).
set -euo pipefail

DIR="${DPKIT_CH_DIR:-/tmp/dpkit-clickhouse-$(id -u)}"
TCP=(19001 19002)
HTTP=(18123 18124)
INTERSERVER=(19011 19012)

server_bin() {
  if [ -x /usr/bin/clickhouse ]; then echo "/usr/bin/clickhouse server"; return; fi
  if command -v clickhouse-server >/dev/null 2>&1; then command -v clickhouse-server; return; fi
  if [ -x /usr/sbin/clickhouse-server ]; then echo /usr/sbin/clickhouse-server; return; fi
  echo "clickhouse-server not found (apt-get install clickhouse-server)" >&2
  exit 1
}

write_config() {
  local i=$1 d="$DIR/shard$1"
  mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas" "$d/log"
  cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/log/server.log</log><errorlog>$d/log/server.err.log</errorlog><size>10M</size><count>2</count></logger>
  <http_port>${HTTP[$i-1]}</http_port>
  <tcp_port>${TCP[$i-1]}</tcp_port>
  <interserver_http_port>${INTERSERVER[$i-1]}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>256</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>64</max_concurrent_queries>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <remote_servers>
    <dpkit>
      <shard><replica><host>127.0.0.1</host><port>${TCP[0]}</port></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>${TCP[1]}</port></replica></shard>
    </dpkit>
  </remote_servers>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
</yandex>
XML
  write_users "$1"
}

write_users() {
  local d="$DIR/shard$1"
  cat >"$d/users.xml.tmp" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>4000000000</max_memory_usage><load_balancing>random</load_balancing></default>
    <readonly><readonly>1</readonly></readonly>
    <dpkit_lenient>
      <max_memory_usage>4000000000</max_memory_usage>
      <extremes>1</extremes>
      <count_distinct_implementation>uniq</count_distinct_implementation>
      <distributed_group_by_no_merge>1</distributed_group_by_no_merge>
      <empty_result_for_aggregation_by_empty_set>1</empty_result_for_aggregation_by_empty_set>
      <skip_unavailable_shards>1</skip_unavailable_shards>
    </dpkit_lenient>
    <dpkit_limited>
      <max_memory_usage>4000000000</max_memory_usage>
      <max_rows_to_read>20000</max_rows_to_read><read_overflow_mode>break</read_overflow_mode>
      <max_rows_to_group_by>100</max_rows_to_group_by><group_by_overflow_mode>any</group_by_overflow_mode>
      <max_result_rows>50</max_result_rows><result_overflow_mode>break</result_overflow_mode>
      <timeout_overflow_mode>break</timeout_overflow_mode>
    </dpkit_limited>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
    <dpkit_lenient>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>dpkit_lenient</profile>
      <quota>default</quota>
    </dpkit_lenient>
    <dpkit_limited>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>dpkit_limited</profile>
      <quota>default</quota>
    </dpkit_limited>
    <dpkit_readonly>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>readonly</profile>
      <quota>default</quota>
    </dpkit_readonly>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
  mv "$d/users.xml.tmp" "$d/users.xml"
}

ping() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 2 "http://127.0.0.1:$1/ping" >/dev/null 2>&1
  else
    # No curl: a plain HTTP request over bash's /dev/tcp.
    (exec 3<>"/dev/tcp/127.0.0.1/$1" && printf 'GET /ping HTTP/1.0\r\n\r\n' >&3 && timeout 2 grep -q '^Ok\.' <&3) 2>/dev/null
  fi
}

start() {
  local bin
  bin=$(server_bin)
  if [ -f "$DIR/pids" ]; then
    if ping "${HTTP[0]}" && ping "${HTTP[1]}"; then
      for i in 1 2; do [ -d "$DIR/shard$i" ] && write_users "$i"; done
      echo "http://127.0.0.1:${HTTP[0]}"
      return 0
    fi
    stop
  fi
  mkdir -p "$DIR"
  : >"$DIR/pids"
  for i in 1 2; do
    write_config "$i"
    # shellcheck disable=SC2086
    (cd "$DIR/shard$i" && exec $bin --config-file="$DIR/shard$i/config.xml" >"$DIR/shard$i/log/stdout.log" 2>&1) &
    echo $! >>"$DIR/pids"
  done
  for _ in $(seq 1 150); do
    if ping "${HTTP[0]}" && ping "${HTTP[1]}"; then echo "http://127.0.0.1:${HTTP[0]}"; return 0; fi
    sleep 0.2
  done
  echo "clickhouse cluster did not start within 30 s; logs:" >&2
  tail -n 20 "$DIR"/shard*/log/*.log >&2 || true
  stop
  return 1
}

# True when the process $1 is one of this cluster's servers (its command line names a config file
# under $DIR): a recorded PID may have been reused by another process after a server died.
ours() {
  local args
  args=$(ps -o args= -p "$1" 2>/dev/null) || return 1
  case "$args" in *"--config-file=$DIR/shard"*) return 0 ;; esac
  return 1
}

stop() {
  if [ -f "$DIR/pids" ]; then
    local pids=()
    while read -r pid; do [ -n "$pid" ] && ours "$pid" && pids+=("$pid"); done <"$DIR/pids"
    for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 50); do
      local alive=0
      for pid in ${pids[@]+"${pids[@]}"}; do ours "$pid" && alive=1; done
      [ $alive = 0 ] && break
      sleep 0.2
    done
    for pid in ${pids[@]+"${pids[@]}"}; do ours "$pid" && kill -9 "$pid" 2>/dev/null || true; done
  fi
  rm -rf "$DIR"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) ping "${HTTP[0]}" && ping "${HTTP[1]}" ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
