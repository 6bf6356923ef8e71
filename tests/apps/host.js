// The smallest MCP Apps host, run in a browser page by run.mjs: it connects
// to the server as a client that renders views (the SDK's client over
// Streamable HTTP, declaring the UI extension), calls the tool, renders the
// tool's view in a sandboxed iframe and joins the two with the Apps SDK's
// host bridge, which passes the view's tool calls back to the server.
// The server is at another origin (`?server=URL`), as a web host's would
// be: the browser lets the page talk to it only if the server answers its
// CORS preflights and exposes the session header.
// What it saw goes to `window.host` for the test to read.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";

const EXTENSION = "io.modelcontextprotocol/ui";
const INFO = { name: "apps-browser-test-host", version: "1.0.0" };
const params = new URLSearchParams(location.search);
const TOOL = params.get("tool");
const ARGS = JSON.parse(params.get("args") ?? "{}");
const SERVER = new URL(params.get("server"));

const host = { ready: false, error: null, viewCalls: [], tools: [], view: null, result: null };
window.host = host;

function say(line) {
    document.getElementById("log").textContent += `${line}\n`;
}

async function main() {
    const client = new Client(INFO, {
        capabilities: { extensions: { [EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    });
    const transport = new StreamableHTTPClientTransport(SERVER);
    await client.connect(transport);
    host.sessionId = transport.sessionId ?? null;
    host.serverExtensions = client.getServerCapabilities()?.extensions ?? {};
    say(`connected; extensions: ${Object.keys(host.serverExtensions).join(", ")}`);

    const { tools } = await client.listTools();
    host.tools = tools.map((tool) => ({ name: tool.name, ui: tool._meta?.ui ?? null }));
    const uri = tools.find((tool) => tool.name === TOOL)?._meta?.ui?.resourceUri;
    if (!uri) throw new Error(`the tool ${TOOL} names no view`);

    const result = await client.callTool({ name: TOOL, arguments: ARGS });
    host.result = result;
    const { contents } = await client.readResource({ uri });
    const view = contents[0];
    host.view = { uri: view.uri, mimeType: view.mimeType, meta: view._meta ?? null, bytes: view.text.length };
    if (view.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`the view is ${view.mimeType}`);
    say(`${TOOL} → ${uri} (${view.text.length} bytes)`);

    // Scripts only: the view's origin is opaque, as in real hosts.
    const frame = document.createElement("iframe");
    frame.id = "view";
    frame.setAttribute("sandbox", "allow-scripts");
    frame.title = uri;
    document.getElementById("stage").append(frame);

    const bridge = new AppBridge(client, INFO, { serverTools: {}, serverResources: {}, logging: {} });
    bridge.onsizechange = ({ height }) => {
        if (height) frame.style.height = `${Math.ceil(height)}px`;
    };
    const initialized = new Promise((resolve) => {
        bridge.oninitialized = resolve;
    });
    // Every tool call from here on is the view's, which the bridge passes
    // to the server through the client.
    const request = client.request.bind(client);
    client.request = (message, ...rest) => {
        if (message.method === "tools/call") {
            host.viewCalls.push({ name: message.params.name, arguments: message.params.arguments ?? {} });
            say(`view calls ${message.params.name}`);
        }
        return request(message, ...rest);
    };
    await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
    frame.srcdoc = view.text;
    await initialized;
    await bridge.sendToolInput({ arguments: ARGS });
    await bridge.sendToolResult(result);
    host.ready = true;
    say("view initialized; input and result sent");
}

main().catch((error) => {
    host.error = String(error?.stack ?? error);
    say(`error: ${host.error}`);
});
