// The official TypeScript SDK's client against the catalog example (the
// reference servers' tools behind tool search), as a 2025-11-25 client
// sees it: it lists only `search_tools` and `call_tool`, finds a Slack
// tool by what it does, calls it through `call_tool` and directly, and gets
// its arguments back. Run by .ci/catalog-interop; plain ES modules:
//
//     NODE_PATH=<dir with node_modules> node catalog_client.mjs stdio <catalog binary> --tools <file>
//     NODE_PATH=<dir with node_modules> node catalog_client.mjs http <url>
//
// Exits non-zero, saying which check failed, when the server is wrong.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const require = createRequire(join(process.env.NODE_PATH ?? process.cwd(), "x.js"));
const sdk = (path) => import(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${path}`)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const [mode, target, ...args] = process.argv.slice(2);
if (!["stdio", "http"].includes(mode) || !target) {
    console.error("usage: node catalog_client.mjs stdio <server binary> [args...] | http <url>");
    process.exit(2);
}

const client = new Client({ name: "ts-catalog-client", version: "1.0.0" }, { capabilities: {} });
const transport =
    mode === "stdio"
        ? new StdioClientTransport({ command: target, args, stderr: "inherit" })
        : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport);

const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name).sort(), ["call_tool", "search_tools"], "only the search tools are listed");
const search = tools.find((t) => t.name === "search_tools");
assert.ok(search.inputSchema.properties.query, "search_tools takes a query");

const found = await client.callTool({ name: "search_tools", arguments: { query: "send a message to a slack channel", limit: 3 } });
assert.equal(found.isError, undefined, JSON.stringify(found));
const hits = JSON.parse(found.content[0].text).tools;
assert.equal(hits[0].name, "slack_post_message", JSON.stringify(hits.map((t) => t.name)));
assert.ok(hits[0].inputSchema.properties.channel_id, "a hit is a whole definition");

const args1 = { channel_id: "C1", text: "hello" };
const called = await client.callTool({ name: "call_tool", arguments: { name: "slack_post_message", arguments: args1 } });
assert.deepEqual(JSON.parse(called.content[0].text), args1, "call_tool answers with the named tool's result");
const direct = await client.callTool({ name: "git_status", arguments: { repo_path: "/src" } });
assert.deepEqual(JSON.parse(direct.content[0].text), { repo_path: "/src" }, "a hidden tool is callable by name");
const regex = await client.callTool({ name: "search_tools", arguments: { query: "^git_(status|log)$", regex: true } });
assert.deepEqual(JSON.parse(regex.content[0].text).tools.map((t) => t.name), ["git_log", "git_status"]);
const bad = await client.callTool({ name: "search_tools", arguments: { query: "(", regex: true } });
assert.equal(bad.isError, true, "a bad regex is a tool error");

await client.close();
console.log(`typescript catalog client (${mode}): listed 2, searched, called through call_tool and directly, regex: ok`);
