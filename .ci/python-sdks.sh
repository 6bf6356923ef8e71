# Sourced by the scripts that drive our servers with the official Python
# SDK clients: the pinned versions, each in a virtual environment under
# the cargo target directory, installed when missing. Sets $modern_py and
# $handshake_py (2.x takes the stateless 2026-07-28 path, 1.x the
# `initialize` handshake).
MODERN_SDK=2.3.0
HANDSHAKE_SDK=1.30.0

command -v python3 >/dev/null || { echo "python3 is missing from PATH" >&2; exit 1; }
target_dir="${CARGO_TARGET_DIR:-target}"

venv() { # venv <dir> <mcp version>
    if [ ! -x "$1/bin/python" ] || ! "$1/bin/python" -c "import importlib.metadata as m; assert m.version('mcp') == '$2'" 2>/dev/null; then
        echo "== installing the Python SDK mcp==$2 into $1"
        rm -rf "$1"
        python3 -m venv "$1"
        "$1/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$2"
    fi
}
venv "$target_dir/python-sdk-$MODERN_SDK" "$MODERN_SDK"
venv "$target_dir/python-sdk-$HANDSHAKE_SDK" "$HANDSHAKE_SDK"
modern_py="$target_dir/python-sdk-$MODERN_SDK/bin/python"
handshake_py="$target_dir/python-sdk-$HANDSHAKE_SDK/bin/python"

# Servers over Streamable HTTP on a free port; each says where it listens.
pids=()
logs=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -f "${logs[@]}"' EXIT
serve_http() { # serve_http <binary> [args...]; sets $url
    local log
    log="$(mktemp)"
    logs+=("$log")
    "$@" --http 127.0.0.1:0 2>"$log" &
    local pid=$!
    pids+=("$pid")
    url=""
    for _ in $(seq 1 100); do
        url="$(sed -n 's/.*serving MCP over Streamable HTTP at \(http[^ ]*\).*/\1/p' "$log" | head -n1)"
        [ -n "$url" ] && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; echo "$1 exited" >&2; exit 1; }
        sleep 0.1
    done
    cat "$log" >&2
    echo "$1 never said where it listens" >&2
    exit 1
}
