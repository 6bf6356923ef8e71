// An MCP server written with the official TypeScript SDK's high-level API
// (`McpServer`), for our client to drive (.ci/server-interop,
// tests/client_interop.rs). Plain ES modules, no build step:
//
//     NODE_PATH=<dir with node_modules> node server.mjs stdio
//     NODE_PATH=... node server.mjs http   # prints "listening at http://127.0.0.1:PORT/mcp"
//
// The SDK's 1.x line speaks the handshake versions only. What it offers
// (the same as tests/python/server.py):
// - tools: `add` (a number, structured as `{"result": ...}`), `split` (an
//   object with an output schema), `book` (elicits a day), `haiku` (samples
//   the client's model), `roots` (lists the client's roots), `touch` (says
//   a resource changed), `chatter` (logs one message at each of four levels;
//   the SDK drops those below the level `logging/setLevel` asked for);
// - the resource `config://app` and the template `notes://{title}`;
// - the prompt `greet`, whose `name` completes;
// - `resources/subscribe` and `resources/unsubscribe`.

import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

// The SDK is installed outside the repository (under the cargo target
// directory): find it through NODE_PATH, as `require` would.
const require = createRequire(join(process.env.NODE_PATH ?? process.cwd(), "x.js"));
const sdk = (path) => import(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${path}`)).href);
const { McpServer, ResourceTemplate } = await sdk("server/mcp.js");
const { completable } = await sdk("server/completable.js");
const { StdioServerTransport } = await sdk("server/stdio.js");
const { StreamableHTTPServerTransport } = await sdk("server/streamableHttp.js");
const { SubscribeRequestSchema, UnsubscribeRequestSchema, isInitializeRequest } = await sdk("types.js");
const { z } = await import(pathToFileURL(require.resolve("zod")).href);

const NAMES = ["Ada", "Alan", "Grace"];

function build() {
    const server = new McpServer(
        { name: "ts-interop-server", version: "1.0.0" },
        { capabilities: { logging: {}, resources: { subscribe: true } }, instructions: "A server for interop tests." },
    );
    const subscribed = new Set();

    server.registerTool(
        "add",
        {
            description: "Add two numbers.",
            inputSchema: { a: z.number(), b: z.number() },
            outputSchema: { result: z.number() },
        },
        async ({ a, b }) => {
            const result = { result: a + b };
            return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
        },
    );

    server.registerTool(
        "split",
        {
            description: "Split text into words.",
            inputSchema: { text: z.string() },
            outputSchema: { words: z.array(z.string()), first: z.string().nullable() },
        },
        async ({ text }) => {
            const words = text.split(/\s+/).filter((w) => w.length > 0);
            const result = { words, first: words[0] ?? null };
            return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
        },
    );

    server.registerTool("book", { description: "Book a table on a day the user picks." }, async (extra) => {
        const answer = await server.server.elicitInput(
            {
                mode: "form",
                message: "Which day?",
                requestedSchema: { type: "object", properties: { day: { type: "string" } }, required: ["day"] },
            },
            { relatedRequestId: extra.requestId },
        );
        if (answer.action !== "accept") {
            return { content: [{ type: "text", text: `the user chose ${answer.action}` }], isError: true };
        }
        return { content: [{ type: "text", text: `booked for ${answer.content.day}` }] };
    });

    server.registerTool("haiku", { description: "Ask the client's model for a haiku." }, async (extra) => {
        const answer = await server.server.createMessage(
            {
                messages: [{ role: "user", content: { type: "text", text: "Write a haiku about Rust" } }],
                maxTokens: 50,
            },
            { relatedRequestId: extra.requestId },
        );
        return { content: [{ type: "text", text: `${answer.model} wrote: ${answer.content.text}` }] };
    });

    server.registerTool("roots", { description: "The client's roots." }, async (extra) => {
        const listed = await server.server.listRoots(undefined, { relatedRequestId: extra.requestId });
        const text = listed.roots.map((root) => `${root.name}=${root.uri}`).join(", ");
        return { content: [{ type: "text", text }] };
    });

    server.registerTool(
        "touch",
        { description: "Say the resource at `uri` changed.", inputSchema: { uri: z.string() } },
        async ({ uri }) => {
            if (subscribed.has(uri)) {
                await server.server.sendResourceUpdated({ uri });
            }
            return { content: [{ type: "text", text: `touched ${uri}` }] };
        },
    );

    server.registerTool(
        "chatter",
        { description: "Log one message at each of debug, info, warning and error." },
        async (extra) => {
            for (const level of ["debug", "info", "warning", "error"]) {
                await server.sendLoggingMessage({ level, data: `a ${level} message`, logger: "chatter" }, extra.sessionId);
            }
            return { content: [{ type: "text", text: "chattered" }] };
        },
    );

    server.registerResource(
        "config",
        "config://app",
        { description: "The app's settings.", mimeType: "application/json" },
        async (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/json", text: '{"debug": true}' }] }),
    );

    server.registerResource(
        "note",
        new ResourceTemplate("notes://{title}", {
            list: undefined,
            complete: { title: (value) => ["today", "tomorrow"].filter((t) => t.startsWith(value)) },
        }),
        { description: "A note by title." },
        async (uri, { title }) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `note ${title}` }] }),
    );

    server.registerPrompt(
        "greet",
        {
            description: "Greet someone.",
            argsSchema: { name: completable(z.string(), (value) => NAMES.filter((n) => n.startsWith(value))) },
        },
        ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] }),
    );

    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
        subscribed.add(request.params.uri);
        return {};
    });
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
        subscribed.delete(request.params.uri);
        return {};
    });
    return server;
}

async function serveHttp() {
    // One server and transport per session, as the SDK's examples do.
    const transports = new Map();
    const http = createServer(async (req, res) => {
        try {
            const chunks = [];
            for await (const chunk of req) chunks.push(chunk);
            const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
            const id = req.headers["mcp-session-id"];
            let transport = id ? transports.get(id) : undefined;
            if (!transport && req.method === "POST" && !id && isInitializeRequest(body)) {
                transport = new StreamableHTTPServerTransport({
                    sessionIdGenerator: () => randomUUID(),
                    onsessioninitialized: (sessionId) => transports.set(sessionId, transport),
                });
                transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
                await build().connect(transport);
            }
            if (!transport) {
                res.writeHead(id ? 404 : 400, { "content-type": "application/json" });
                res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "no session" } }));
                return;
            }
            await transport.handleRequest(req, res, body);
        } catch (error) {
            console.error(error);
            if (!res.headersSent) res.writeHead(500).end();
        }
    });
    http.listen(0, "127.0.0.1", () => {
        console.error(`listening at http://127.0.0.1:${http.address().port}/mcp`);
    });
}

const mode = process.argv[2];
if (mode === "stdio") {
    await build().connect(new StdioServerTransport());
} else if (mode === "http") {
    await serveHttp();
} else {
    console.error("usage: server.mjs stdio|http");
    process.exit(2);
}
