#!/usr/bin/env bash
# The published MCP workload ("MCP Server Performance Benchmark v2"), our
# entry against the benchmark's rmcp entry (and, with --fastmcp, its FastMCP
# entry), in one command:
#   bash bench/workload.sh [--seconds N] [--rounds R] [--warmup N] [--vus N] [--fastmcp] [--ours-only] [--no-pin]
# Builds in release what is missing (bench-workload, bench-workload-catalog, the
# driver; the rmcp entry from its published source in bench/workload-rmcp,
# standalone, into $CARGO_TARGET_DIR/workload-rmcp; with --fastmcp, a venv
# under $CARGO_TARGET_DIR/workload-fastmcp with the entry's requirements
# pinned), then runs `mcp-bench --workload`: a private Redis and the catalog
# service, Redis flushed and seeded before each entry's run, the entries in
# alternating order, every answer checked. Fails if any check failed.
# Needs redis-server (.ci/install-services installs it) and taskset.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
target="$(mkdir -p "$target" && cd "$target" && pwd)"
export CARGO_TARGET_DIR="$target"

args=()
fastmcp=""
ours_only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds|--rounds|--warmup|--vus) args+=("$1" "$2"); shift 2 ;;
        --no-pin) args+=("$1"); shift ;;
        --fastmcp) fastmcp=1; shift ;;
        # Our entry alone (no rmcp build): what CI runs, to check the
        # harness and our entry end to end, not to compare.
        --ours-only) ours_only=1; shift ;;
        *) echo "usage: bash bench/workload.sh [--seconds N] [--rounds R] [--warmup N] [--vus N] [--fastmcp] [--ours-only] [--no-pin]" >&2; exit 2 ;;
    esac
done

command -v redis-server >/dev/null || { echo "workload: redis-server is missing; .ci/install-services installs it" >&2; exit 1; }

echo "== building (release): the driver, our entry, the catalog service"
cargo build --quiet --release -p mcp-bench -p bench-workload -p bench-workload-catalog

if [ -n "$ours_only" ]; then
    args+=(--ours-only)
else
    echo "== building (release): the benchmark's rmcp entry, from bench/workload-rmcp"
    cargo build --quiet --release --manifest-path bench/workload-rmcp/Cargo.toml --target-dir "$target/workload-rmcp"
    args+=(--rmcp "$target/workload-rmcp/release/rust-mcp-server")
fi

if [ -n "$fastmcp" ]; then
    dir="$target/workload-fastmcp"
    if [ ! -x "$dir/venv/bin/uvicorn" ] || ! cmp -s bench/workload-fastmcp/requirements.txt "$dir/requirements.txt"; then
        echo "== installing the FastMCP entry's requirements into $dir/venv"
        rm -rf "$dir/venv"
        mkdir -p "$dir"
        python3 -m venv "$dir/venv"
        "$dir/venv/bin/pip" install --quiet -r bench/workload-fastmcp/requirements.txt
        cp bench/workload-fastmcp/requirements.txt "$dir/requirements.txt"
    fi
    cp bench/workload-fastmcp/main.py "$dir/main.py"
    args+=(--fastmcp "$dir")
fi

"$target/release/mcp-bench" --workload "${args[@]}"
