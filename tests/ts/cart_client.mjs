// The official TypeScript SDK's client against the cart example (per-user
// state), as a 2025-11-25 client sees it: the session owns its cart
// between calls; a cart at a handle the server mints works too, and a
// forged handle is refused. Over HTTP a second session has a cart of its
// own and cannot open the first one's handle. Run by .ci/catalog-interop;
// plain ES modules:
//
//     NODE_PATH=<dir with node_modules> node cart_client.mjs stdio <cart binary>
//     NODE_PATH=<dir with node_modules> node cart_client.mjs http <url>
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
    console.error("usage: node cart_client.mjs stdio <server binary> [args...] | http <url>");
    process.exit(2);
}

async function connect(name) {
    const client = new Client({ name, version: "1.0.0" }, { capabilities: {} });
    const transport =
        mode === "stdio"
            ? new StdioClientTransport({ command: target, args, stderr: "inherit" })
            : new StreamableHTTPClientTransport(new URL(target));
    await client.connect(transport);
    return client;
}

async function call(client, name, args) {
    const result = await client.callTool({ name, arguments: args });
    return { text: result.content[0].text, error: result.isError === true };
}

async function said(client, name, args) {
    const { text, error } = await call(client, name, args);
    assert.equal(error, false, `${name} ${JSON.stringify(args)}: ${text}`);
    return text;
}

const ann = await connect("ts-cart-ann");
assert.equal(await said(ann, "add_to_cart", { item: "tea" }), "tea");
assert.equal(await said(ann, "add_to_cart", { item: "jam" }), "tea, jam", "the session keeps its cart");
const handle = await said(ann, "new_cart", {});
assert.ok(handle.startsWith("st1."), handle);
assert.equal(await said(ann, "add_to_cart", { item: "rye", cart: handle }), "rye");
assert.equal(await said(ann, "show_cart", { cart: handle }), "rye");
const forged = handle.slice(0, -2) + (handle.endsWith("AA") ? "BB" : "AA");
const refused = await call(ann, "show_cart", { cart: forged });
assert.ok(refused.error && refused.text.includes("refused"), JSON.stringify(refused));
if (mode === "http") {
    const bob = await connect("ts-cart-bob");
    assert.equal(await said(bob, "show_cart", {}), "the cart is empty", "another session's cart is its own");
    const stolen = await call(bob, "show_cart", { cart: handle });
    assert.ok(stolen.error && stolen.text.includes("belongs to another user"), JSON.stringify(stolen));
    await bob.close();
}
assert.equal(await said(ann, "show_cart", {}), "tea, jam", "nothing refused changed the cart");
await ann.close();
console.log(`typescript cart client (${mode}): the session's cart, a handle's, forged and foreign handles refused: ok`);
