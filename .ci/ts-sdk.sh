# Sourced by the scripts that run the official TypeScript SDK's server
# (tests/ts/server.mjs): the pinned SDK in an npm prefix under the cargo
# target directory, installed when missing; the machine's Node.js runs it.
# Sets $TS_SDK and $ts_dir (its node_modules is the server's NODE_PATH).
# Needs $target_dir (.ci/python-sdks.sh sets it).
TS_SDK=1.32.2

for tool in node npm; do
    command -v "$tool" >/dev/null || { echo "$tool is missing from PATH" >&2; exit 1; }
done
ts_dir="$target_dir/ts-sdk-$TS_SDK"
ts_pkg="$ts_dir/node_modules/@modelcontextprotocol/sdk/package.json"
if ! grep -qF "\"version\": \"$TS_SDK\"" "$ts_pkg" 2>/dev/null; then
    echo "== installing the TypeScript SDK @modelcontextprotocol/sdk@$TS_SDK into $ts_dir"
    rm -rf "$ts_dir"
    mkdir -p "$ts_dir"
    npm install --prefix "$ts_dir" --no-save --no-package-lock --no-audit --no-fund \
        "@modelcontextprotocol/sdk@$TS_SDK"
    grep -qF "\"version\": \"$TS_SDK\"" "$ts_pkg" || {
        echo "installed @modelcontextprotocol/sdk@$TS_SDK but $ts_pkg says otherwise" >&2
        exit 1
    }
fi

