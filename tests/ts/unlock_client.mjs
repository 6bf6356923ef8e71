// The official TypeScript SDK's client against the unlock example (a
// support desk whose refund tools a caller unlocks for itself), as a
// 2025-11-25 client sees it: the public tools are listed (`lookup_order`
// as its version 2, its version 1 called when a call names it), signing in is
// followed by a tool list change for this client only, `refund` is then
// listed and called, the unlocked prompt is found and got through the
// `list_prompts` and `get_prompt` tools, and signing out hides it again. Over HTTP a second
// client, connected all along, never sees `refund` nor hears of a change.
// Run by .ci/catalog-interop; plain ES modules:
//
//     NODE_PATH=<dir with node_modules> node unlock_client.mjs stdio <unlock binary>
//     NODE_PATH=<dir with node_modules> node unlock_client.mjs http <url>
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
const { ToolListChangedNotificationSchema } = await sdk("types.js");

const [mode, target, ...args] = process.argv.slice(2);
if (!["stdio", "http"].includes(mode) || !target) {
    console.error("usage: node unlock_client.mjs stdio <server binary> [args...] | http <url>");
    process.exit(2);
}

const PUBLIC = [
    "lookup_order", "sign_in_as_admin", "sign_out",
    "list_resources", "list_resource_templates", "read_resource", "list_prompts", "get_prompt",
].sort();

/** A connected client and the tool list changes it heard of. */
async function connect(name) {
    const client = new Client({ name, version: "1.0.0" }, { capabilities: {} });
    const heard = [];
    let wake = () => {};
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heard.push("tools");
        wake();
    });
    const transport =
        mode === "stdio"
            ? new StdioClientTransport({ command: target, args, stderr: "inherit" })
            : new StreamableHTTPClientTransport(new URL(target));
    await client.connect(transport);
    const changed = () =>
        heard.length > 0
            ? Promise.resolve(heard.shift())
            : new Promise((resolve, reject) => {
                  const timer = setTimeout(() => reject(new Error(`${name} heard of no change`)), 10000);
                  wake = () => {
                      clearTimeout(timer);
                      wake = () => {};
                      resolve(heard.shift());
                  };
              });
    return { client, heard, changed };
}

const names = async (client) => (await client.listTools()).tools.map((t) => t.name).sort();

const ann = await connect("ts-unlock-ann");
const bob = mode === "http" ? await connect("ts-unlock-bob") : undefined;
assert.deepEqual(await names(ann.client), PUBLIC, "the public tools");
const lookup = (await ann.client.listTools()).tools.filter((t) => t.name === "lookup_order");
assert.equal(lookup.length, 1, "one lookup_order listed");
assert.equal(lookup[0]._meta?.version, "2", "the newest version is listed");
const newest = await ann.client.callTool({ name: "lookup_order", arguments: { order: 3 } });
assert.equal(newest.content[0].text, "order 3: shipped by post", "version 2 answers");
const first = await ann.client.callTool({ name: "lookup_order", arguments: { order: 3 }, _meta: { version: "1" } });
assert.equal(first.content[0].text, "order 3: shipped", "a call naming version 1 gets it");
const signed = await ann.client.callTool({ name: "sign_in_as_admin", arguments: {} });
assert.equal(signed.isError, undefined, JSON.stringify(signed));
assert.equal(await ann.changed(), "tools", "told its tool list changed");
assert.deepEqual(await names(ann.client), [...PUBLIC, "refund"].sort(), "refund is listed after signing in");
const refunded = await ann.client.callTool({ name: "refund", arguments: { order: 7 } });
assert.equal(refunded.content[0].text, "refunded order 7");
assert.deepEqual((await ann.client.listPrompts()).prompts.map((p) => p.name), ["audit"]);
const asTool = await ann.client.callTool({ name: "list_prompts", arguments: {} });
assert.deepEqual(JSON.parse(asTool.content[0].text).prompts.map((p) => p.name), ["audit"], "list_prompts as a tool");
const prompt = await ann.client.callTool({ name: "get_prompt", arguments: { name: "audit" } });
assert.ok(JSON.stringify(prompt).includes("refunds"), JSON.stringify(prompt));
if (bob) {
    assert.deepEqual(await names(bob.client), PUBLIC, "the other client sees the public tools only");
    const refused = await bob.client.callTool({ name: "refund", arguments: { order: 7 } }).catch((e) => e);
    assert.ok(String(refused.message ?? JSON.stringify(refused)).includes("unknown tool"), String(refused));
    assert.deepEqual(bob.heard, [], "the other client heard of no change");
}
await ann.client.callTool({ name: "sign_out", arguments: {} });
assert.equal(await ann.changed(), "tools", "told again when signing out");
assert.deepEqual(await names(ann.client), PUBLIC, "back to the public tools");

await ann.client.close();
await bob?.client.close();
console.log(`typescript unlock client (${mode}): listed (the newest version, the first on request), signed in, told of the change, refunded, signed out: ok`);
