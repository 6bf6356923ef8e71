#!/usr/bin/env bash
# Instructions per stateless `calculator` call, the steady measure on a
# shared machine: a release server under callgrind, `wrk -t1 -c4` POSTing
# the 2026-07-28 call for a few seconds, then the program's instruction
# count divided by the answers wrk counted. Start-up and shutdown are in
# the count too: compare runs of the same length only.
#
#   bash bench/callgrind.sh [ours|flymcprust|proxy|PATH] [SECONDS]
#
# (PATH: a peer's binary built elsewhere, e.g. an earlier commit's.)
# `proxy` is `bench-proxy` mounting `bench-ours` (over its stdio): only the
# proxy is counted, so the figure is what a proxied call costs the proxy.
# `UPSTREAM=PATH` runs a PATH peer as a proxy of that upstream.
# Needs valgrind and wrk, and a release build of the peer
# (`cargo build --release -p bench-ours` or `-p bench-flymcprust-peer`).
set -euo pipefail
cd "$(dirname "$0")/.."
peer="${1:-ours}"
seconds="${2:-5}"
target="${CARGO_TARGET_DIR:-target}/release"
case "$peer" in
    ours) bin="$target/bench-ours" ;;
    flymcprust) bin="$target/bench-flymcprust-peer" ;;
    proxy) bin="$target/bench-proxy"; UPSTREAM="${UPSTREAM:-$target/bench-ours}" ;;
    *) bin="$peer" ;;
esac
upstream=()
[ -z "${UPSTREAM:-}" ] || upstream=("$UPSTREAM")
[ -x "$bin" ] || { echo "callgrind.sh: build $bin first" >&2; exit 1; }
port=$((20000 + RANDOM % 20000))
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$work/out" "$bin" "${upstream[@]}" --http "127.0.0.1:$port" 2>"$work/valgrind.log" &
server=$!
body='{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calculator","arguments":{"operation":"add","a":6,"b":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
answer=""
for _ in $(seq 100); do
    answer=$(curl -s --max-time 10 "http://127.0.0.1:$port/mcp" -X POST -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
        -H 'Mcp-Method: tools/call' -H 'Mcp-Name: calculator' -d "$body") && break
    sleep 0.5
done
case "$answer" in
    *'"result: 7"'*) ;;
    *) echo "callgrind.sh: $peer answered $answer" >&2; exit 1 ;;
esac
cat >"$work/call.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "calculator"
wrk.body = [==[$body]==]
function done(summary, latency, requests)
  io.write(string.format("answers %d bad %d\n", summary.requests,
    summary.errors.status + summary.errors.read + summary.errors.timeout))
end
LUA
wrk -t1 -c4 -d"${seconds}s" -s "$work/call.lua" "http://127.0.0.1:$port/mcp" >"$work/wrk.log"
# The servers run until killed: callgrind writes its counts when asked.
callgrind_control --dump "$server" >/dev/null 2>&1
kill -KILL "$server"; wait "$server" 2>/dev/null || true
answers=$(awk '/^answers/ {print $2}' "$work/wrk.log")
bad=$(awk '/^answers/ {print $4}' "$work/wrk.log")
[ "$bad" = 0 ] || { echo "callgrind.sh: $bad bad answers" >&2; cat "$work/wrk.log" >&2; exit 1; }
total=$(cat "$work"/out* | awk '/^totals:/ {sum += $2} END {printf "%d", sum}')
[ -z "${KEEP:-}" ] || echo "kept: $work"
echo "$peer: $answers answers, $total instructions, $((total / answers)) per call"
