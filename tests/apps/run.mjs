// The MCP Apps browser test: the notes example's editor, as a person sees
// it in a host. It starts the example over Streamable HTTP, serves a host
// page (host.js, bundled) from another origin (another port), which talks
// to the server across origins as a web host does, opens the page in
// headless Chromium, and drives the view: the note `edit_note` opened is
// shown, a click on Save calls `write_note` through the host, and the
// server has the new text. A plain client (no UI extension) then checks
// what a host that renders no views gets.
//
//   node run.mjs --server PATH/TO/notes --chromium /usr/bin/chromium --artifacts DIR
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { build } from "esbuild";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const option = (name) => {
    const at = process.argv.indexOf(`--${name}`);
    if (at < 0 || !process.argv[at + 1]) throw new Error(`run.mjs needs --${name}`);
    return process.argv[at + 1];
};
const serverPath = option("server");
const chromiumPath = option("chromium");
const artifacts = option("artifacts");
const TEXT = "# Welcome\nEdited in the browser, saved through the host.";

const cleanups = [];
let failed = false;
function check(condition, message) {
    if (!condition) {
        failed = true;
        console.error(`FAIL: ${message}`);
    } else {
        console.log(`ok: ${message}`);
    }
}

async function freePort() {
    const server = net.createServer();
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address();
    await new Promise((resolve) => server.close(resolve));
    return port;
}

/** The example over HTTP, once it accepts connections. */
async function startServer() {
    const port = await freePort();
    const child = spawn(serverPath, ["--http", `127.0.0.1:${port}`], { stdio: ["ignore", "inherit", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
        stderr += chunk;
    });
    cleanups.push(() => child.kill());
    for (let tries = 0; tries < 300; tries++) {
        if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${stderr}`);
        const open = await new Promise((resolve) => {
            const socket = net.connect(port, "127.0.0.1", () => resolve(socket.end() && true));
            socket.on("error", () => resolve(false));
        });
        if (open) return { port, log: () => stderr };
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the server did not listen on ${port}:\n${stderr}`);
}

/** The host page, with its script bundled in. */
async function startHost() {
    const bundled = await build({
        entryPoints: [join(here, "host.js")],
        bundle: true,
        format: "esm",
        platform: "browser",
        target: "es2022",
        write: false,
        logLevel: "warning",
    });
    const page = `<!doctype html><meta charset="utf-8"><title>MCP Apps test host</title>
<style>body{font-family:system-ui;margin:1rem;background:#eef0f3}#stage iframe{width:100%;height:24rem;border:1px solid #c8ccd2;border-radius:8px;background:#fff}pre{font-size:12px;color:#555}</style>
<h3>Test host</h3><div id="stage"></div><pre id="log"></pre>
<script type="module">${bundled.outputFiles[0].text.replaceAll("</script", "<\\/script")}</script>`;
    const server = http.createServer((request, response) => {
        if (request.url === "/" || request.url.startsWith("/?")) {
            response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
        } else if (request.url === "/favicon.ico") {
            response.writeHead(204).end();
        } else {
            response.writeHead(404).end();
        }
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => server.close());
    return server.address().port;
}

async function plainClient(port) {
    const client = new Client({ name: "apps-browser-test-plain", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    cleanups.push(() => client.close());
    return client;
}

async function main() {
    const server = await startServer();
    const hostPort = await startHost();
    const profile = await mkdtemp(join(tmpdir(), "apps-browser-"));
    cleanups.push(() => rm(profile, { recursive: true, force: true }));
    const browser = await chromium.launchPersistentContext(profile, {
        executablePath: chromiumPath,
        headless: true,
        viewport: { width: 900, height: 640 },
        args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    });
    cleanups.push(() => browser.close());
    const page = browser.pages()[0] ?? (await browser.newPage());
    // The SDKs log every message at debug level; warnings and errors are news.
    page.on("console", (message) => {
        if (["warning", "error"].includes(message.type())) console.log(`  [page ${message.type()}] ${message.text()}`);
    });
    page.on("pageerror", (error) => console.log(`  [page error] ${error}`));

    const serverUrl = `http://127.0.0.1:${server.port}/mcp`;
    const query = new URLSearchParams({
        tool: "edit_note",
        args: JSON.stringify({ title: "welcome" }),
        server: serverUrl,
    });
    await page.goto(`http://127.0.0.1:${hostPort}/?${query}`);
    await page.waitForFunction(() => window.host?.ready || window.host?.error, null, { timeout: 30_000 });
    const host = await page.evaluate(() => window.host);
    if (host.error) throw new Error(`the host failed: ${host.error}`);

    const pageOrigin = await page.evaluate(() => location.origin);
    check(
        pageOrigin !== new URL(serverUrl).origin,
        `the page (${pageOrigin}) talks to a server of another origin (${new URL(serverUrl).origin})`,
    );
    check(typeof host.sessionId === "string" && host.sessionId.length > 0, "the page reads its Mcp-Session-Id");

    check("io.modelcontextprotocol/ui" in host.serverExtensions, "the server offers the UI extension to a host");
    const byName = Object.fromEntries(host.tools.map((tool) => [tool.name, tool.ui]));
    check(byName.edit_note?.resourceUri === "ui://notes/editor", "edit_note names its view");
    check(
        JSON.stringify(byName.note_titles?.visibility) === '["app"]',
        "a host sees note_titles, marked for views alone",
    );
    check(host.view.mimeType === "text/html;profile=mcp-app", "the view is served as an MCP App");
    check(host.view.meta?.ui?.prefersBorder === true, "the view's _meta.ui reaches the host");

    // The view, as a person sees it.
    const view = page.frameLocator("#view");
    await view.locator("#title").filter({ hasText: "welcome" }).waitFor({ timeout: 15_000 });
    check((await view.locator("#text").inputValue()).startsWith("# Welcome"), "the editor shows the note's text");
    await view.locator("#titles button", { hasText: "welcome" }).waitFor({ timeout: 15_000 });
    check(
        (await view.locator("#titles button").count()) === 1,
        "the editor lists the one note (through note_titles, a tool for views alone)",
    );

    await view.locator("#text").fill(TEXT);
    await view.locator("#save").click();
    await view.locator("#status").filter({ hasText: "Saved" }).waitFor({ timeout: 15_000 });
    check(
        (await view.locator("#status").textContent()).includes("notes://welcome"),
        "the editor says the note was saved, with the server's answer",
    );
    const calls = await page.evaluate(() => window.host.viewCalls);
    check(
        calls.some((call) => call.name === "note_titles"),
        `the view called note_titles through the host (${calls.map((c) => c.name).join(", ")})`,
    );
    check(
        calls.some((call) => call.name === "write_note" && call.arguments.text === TEXT),
        "the view called write_note with the edited text through the host",
    );
    await mkdir(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, "notes-editor.png"), fullPage: true });
    console.log(`screenshot: ${join(artifacts, "notes-editor.png")}`);

    // What the server has now, and what a client without views gets.
    const plain = await plainClient(server.port);
    const read = await plain.readResource({ uri: "notes://welcome" });
    check(read.contents[0].text === TEXT, "the server holds the text saved in the browser");
    const { tools } = await plain.listTools();
    const names = tools.map((tool) => tool.name);
    check(names.includes("edit_note") && !names.includes("note_titles"), "a client without views never sees note_titles");
    const refused = await plain.callTool({ name: "note_titles", arguments: {} }).then(
        (result) => ({ result }),
        (error) => ({ error }),
    );
    check(refused.error || refused.result?.isError, "a client without views cannot call note_titles");
    const opened = await plain.callTool({ name: "edit_note", arguments: { title: "welcome" } });
    check(opened.structuredContent?.text === TEXT, "edit_note's result stands alone for a client without views");
    await writeFile(join(artifacts, "notes-editor.log"), `${server.log()}\n`);
}

try {
    await main();
} catch (error) {
    failed = true;
    console.error(`FAIL: ${error.stack ?? error}`);
} finally {
    for (const cleanup of cleanups.reverse()) {
        await Promise.resolve()
            .then(cleanup)
            .catch(() => {});
    }
}
if (failed) {
    console.error("the MCP Apps browser test failed");
    process.exit(1);
}
console.log("the MCP Apps browser test passed");
