// A certified OpenID provider (the `oidc-provider` package, dynamic
// registration off, one pre-registered client) as the OAuth proxy's
// upstream, and the official TypeScript SDK's client signing in through
// the proxy headless: a scripted user agent posts the proxy's consent
// form and the provider's login and consent forms. It calls a tool whose
// result shows the user's claims, is refused after revocation, and no
// token or secret appears in the server's log.
//
// Then the client crate (the `oauth_proxy_client` example) does the same,
// its tokens refreshed before each call.
//
// Usage: node oauth-proxy-oidc.mjs EXAMPLE_BINARY CLIENT_BINARY OIDC_PROVIDER_DIR TS_SDK_DIR
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [example, ourClient, providerDir, sdkDir] = process.argv.slice(2);
const fail = (why) => { console.error(`oauth-proxy-oidc: ${why}`); cleanup(); process.exit(1); };
const { default: Provider } = await import(pathToFileURL(path.join(providerDir, 'node_modules/oidc-provider/lib/index.js')));
const sdk = (file) => import(pathToFileURL(path.join(sdkDir, 'node_modules/@modelcontextprotocol/sdk/dist/esm', file)));
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { UnauthorizedError } = await sdk('client/auth.js');

const freePort = () => new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
});
const [opPort, proxyPort] = [await freePort(), await freePort()];
const issuer = `http://127.0.0.1:${opPort}`;
const base = `http://127.0.0.1:${proxyPort}`;
const CLIENT_ID = 'mcp-proxy';
const CLIENT_SECRET = randomBytes(24).toString('hex');
const secrets = [CLIENT_SECRET];

// The provider: one client (the proxy's), no registration, PKCE required,
// its development login and consent pages.
const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${base}/oauth/callback`],
        grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
    features: { devInteractions: { enabled: true }, registration: { enabled: false } },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx, id) => ({ accountId: id,
        claims: async () => ({ sub: id, email: `${id}@example.com`, email_verified: true, name: `User ${id}` }) }),
    cookies: { keys: [randomBytes(16).toString('hex')] },
});
provider.on('access_token.issued', (token) => secrets.push(token.jti));
const op = provider.listen(opPort, '127.0.0.1');

let server;
function cleanup() { server?.kill(); op?.close(); }
server = spawn(example, ['--http', `127.0.0.1:${proxyPort}`], {
    env: { ...process.env, UPSTREAM_PROVIDER: 'oidc', UPSTREAM_ISSUER: issuer, UPSTREAM_CLIENT_ID: CLIENT_ID,
        UPSTREAM_CLIENT_SECRET: CLIENT_SECRET, NO_COLOR: '1', MCP_ACCESS_TOKEN_SECONDS: '20' },
    stdio: ['ignore', 'ignore', 'pipe'],
});
const log = [];
await new Promise((resolve, reject) => {
    createInterface({ input: server.stderr }).on('line', (line) => {
        log.push(line);
        if (line.includes('serving MCP over Streamable HTTP at ')) resolve();
    });
    server.on('exit', (code) => reject(new Error(`the example exited (${code}): ${log.join('\n')}`)));
    setTimeout(() => reject(new Error('the example did not start within 60 s')), 60_000).unref();
}).catch((e) => fail(e.message));

// A browser: one cookie jar per origin, forms posted as a user would
// (any login and password the development pages take), redirects
// followed one by one until the client's redirect URI.
async function browse(url, redirectUri) {
    const jars = new Map();
    let request = { url, init: {} };
    for (let hops = 0; hops < 20; hops++) {
        const origin = new URL(request.url).origin;
        const jar = jars.get(origin) ?? new Map();
        jars.set(origin, jar);
        const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
        const response = await fetch(request.url, { ...request.init, redirect: 'manual',
            headers: { ...(request.init.headers ?? {}), cookie } });
        for (const set of response.headers.getSetCookie()) {
            const [pair] = set.split(';');
            const at = pair.indexOf('=');
            jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = response.headers.get('location');
        if (location) {
            const next = new URL(location, request.url).toString();
            if (next.startsWith(redirectUri)) return next;
            request = { url: next, init: {} };
            continue;
        }
        const page = await response.text();
        const action = page.match(/<form[^>]*action="([^"]*)"/)?.[1];
        if (!action) throw new Error(`${request.url} answered ${response.status} without a form: ${page.slice(0, 500)}`);
        const form = new URLSearchParams();
        for (const [, name, value] of page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]*)"[^>]*value="([^"]*)"/g)) form.set(name, value);
        if (page.includes('name="login"')) { form.set('login', 'ada'); form.set('password', 'any'); }
        const approve = page.match(/<button[^>]*name="decision"[^>]*value="approve"/);
        if (approve) form.set('decision', 'approve');
        request = { url: new URL(action.replaceAll('&amp;', '&'), request.url).toString(), init: { method: 'POST', body: form,
            headers: { 'content-type': 'application/x-www-form-urlencoded' } } };
    }
    throw new Error('too many redirects');
}

// The TypeScript SDK's client, with an OAuth provider kept in memory.
const redirectUri = 'http://127.0.0.1:1/callback';
const state = { authorizationUrl: null };
const auth = {
    get redirectUrl() { return redirectUri; },
    get clientMetadata() { return { client_name: 'typescript-sdk', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }; },
    clientInformation() { return state.client; },
    saveClientInformation(info) { state.client = info; },
    tokens() { return state.tokens; },
    saveTokens(tokens) { state.tokens = tokens; },
    redirectToAuthorization(url) { state.authorizationUrl = url.toString(); },
    saveCodeVerifier(verifier) { state.verifier = verifier; },
    codeVerifier() { return state.verifier; },
};
const endpoint = new URL(`${base}/mcp`);
const connect = async () => {
    const client = new Client({ name: 'typescript-sdk', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: auth }));
    return client;
};
try {
    await connect();
    fail('the first connection was not asked to authorize');
} catch (e) {
    if (!(e instanceof UnauthorizedError)) fail(`the first connection failed otherwise: ${e}`);
}
const back = await browse(state.authorizationUrl, redirectUri).catch((e) => fail(`signing in: ${e.message}`));
const code = new URL(back).searchParams.get('code');
await new StreamableHTTPClientTransport(endpoint, { authProvider: auth }).finishAuth(code);
const client = await connect();
const result = await client.callTool({ name: 'whoami', arguments: {} });
const structured = result.structuredContent ?? JSON.parse(result.content[0].text);
const me = structured.result ?? structured;
if (me.subject !== 'ada' || me.claims.email !== 'ada@example.com' || me.claims.iss !== base) {
    fail(`whoami answered ${JSON.stringify(me)}`);
}
console.log(`oauth-proxy-oidc: the TypeScript SDK's client signed in through the proxy as ${me.subject} <${me.claims.email}>`);
secrets.push(state.tokens.access_token, state.tokens.refresh_token);

// Revoked: the next call is refused.
const revoked = await fetch(`${base}/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: state.tokens.refresh_token, client_id: state.client.client_id }) });
if (revoked.status !== 200) fail(`revocation answered ${revoked.status}`);
const after = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${state.tokens.access_token}`,
    'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
if (after.status !== 401) fail(`a revoked token's request answered ${after.status}`);
await client.close().catch(() => {});

// The client crate: it prints the authorization URL, the user agent
// signs in, it calls whoami twice (its 20 s tokens refreshed each time,
// within its 30 s margin).
const ours = spawn(ourClient, [endpoint.toString()], { stdio: ['pipe', 'pipe', 'inherit'] });
const answers = [];
createInterface({ input: ours.stdout }).on('line', async (line) => {
    if (line.startsWith('authorize ')) {
        const back = await browse(line.slice('authorize '.length), redirectUri).catch((e) => fail(`signing in: ${e.message}`));
        ours.stdin.write(`${back}\n`);
    } else if (line.startsWith('whoami ')) {
        answers.push(JSON.parse(line.slice('whoami '.length)));
    }
});
const exit = await new Promise((resolve) => ours.on('exit', resolve));
if (exit !== 0 || answers.length !== 2) fail(`the client crate exited ${exit} after ${answers.length} answers`);
for (const answer of answers) {
    const me = answer.result ?? answer;
    if (me.subject !== 'ada' || me.claims.email !== 'ada@example.com') fail(`whoami answered ${JSON.stringify(me)}`);
}
console.log('oauth-proxy-oidc: the client crate signed in through the proxy as ada and called twice');
cleanup();

const text = log.join('\n');
for (const secret of secrets.filter(Boolean)) if (text.includes(secret)) fail('a token or secret is in the server log');
if (!text.includes('a user signed in through the upstream provider')) fail(`the server log lacks the sign-in:\n${text}`);
if (!text.includes("refreshed a grant's tokens")) fail(`the client crate's tokens were not refreshed:\n${text}`);
console.log('oauth-proxy-oidc: refused after revocation; no token or secret in the server log');
process.exit(0);
