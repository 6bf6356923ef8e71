// The official conformance suite's authorization-server scenarios
// (`authorization-server-metadata-endpoint`, `authorization-code-grant`)
// against the `oauth_proxy` example, in front of a stand-in OpenID
// provider run here (it signs the user in at once). The suite prints the
// authorization URL and waits for its callback; a headless user agent
// here opens it, approves on the proxy's consent page, follows the
// provider and comes back to the suite's callback.
//
// Usage: node oauth-proxy-conformance.mjs EXAMPLE_BINARY SUITE_BINARY RESULTS_DIR
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { createInterface } from 'node:readline';

const [example, suite, resultsDir] = process.argv.slice(2);
const CLIENT_ID = 'proxy-client';
const CLIENT_SECRET = randomBytes(16).toString('hex');
const CALLBACK_PORT = 3000 + Math.floor(Math.random() * 2000);
const b64url = (data) => Buffer.from(data).toString('base64url');
const fail = (why) => { console.error(`oauth-proxy-conformance: ${why}`); process.exit(1); };

// The stand-in provider.
const codes = new Map();
const idp = http.createServer(async (req, res) => {
    const url = new URL(req.url, issuer);
    const json = (status, body) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (url.pathname === '/.well-known/openid-configuration') {
        return json(200, { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`,
            userinfo_endpoint: `${issuer}/userinfo`, token_endpoint_auth_methods_supported: ['client_secret_basic'] });
    }
    if (url.pathname === '/authorize') {
        const q = url.searchParams;
        if (q.get('client_id') !== CLIENT_ID || q.get('code_challenge_method') !== 'S256') return json(400, { error: 'invalid_request' });
        const code = b64url(randomBytes(16));
        codes.set(code, { challenge: q.get('code_challenge'), nonce: q.get('nonce'), redirect: q.get('redirect_uri') });
        const back = new URL(q.get('redirect_uri'));
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state'));
        res.writeHead(302, { location: back.toString() });
        return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
        let body = '';
        for await (const chunk of req) body += chunk;
        const form = new URLSearchParams(body);
        const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
        if (req.headers.authorization !== basic) return json(401, { error: 'invalid_client' });
        const grant = codes.get(form.get('code'));
        codes.delete(form.get('code'));
        const verified = grant && createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') === grant.challenge;
        if (form.get('grant_type') !== 'authorization_code' || !verified || form.get('redirect_uri') !== grant.redirect) {
            return json(400, { error: 'invalid_grant' });
        }
        const idToken = [b64url('{"alg":"none"}'), b64url(JSON.stringify({ iss: issuer, aud: CLIENT_ID, sub: 'conformance-user',
            nonce: grant.nonce, exp: Math.floor(Date.now() / 1000) + 600 })), b64url('unsigned')].join('.');
        return json(200, { access_token: b64url(randomBytes(16)), token_type: 'Bearer', expires_in: 3600, id_token: idToken });
    }
    if (url.pathname === '/userinfo') return json(200, { sub: 'conformance-user', name: 'Conformance User' });
    json(404, { error: 'not_found' });
});
await new Promise((resolve) => idp.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${idp.address().port}`;

// The example, in front of it.
const server = spawn(example, ['--http', '127.0.0.1:0'], {
    env: { ...process.env, UPSTREAM_PROVIDER: 'oidc', UPSTREAM_ISSUER: issuer, UPSTREAM_CLIENT_ID: CLIENT_ID,
        UPSTREAM_CLIENT_SECRET: CLIENT_SECRET },
    stdio: ['ignore', 'ignore', 'pipe'],
});
const serverLog = [];
const endpoint = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: server.stderr });
    lines.on('line', (line) => {
        serverLog.push(line);
        const at = line.indexOf('serving MCP over Streamable HTTP at ');
        if (at >= 0) resolve(line.slice(at + 'serving MCP over Streamable HTTP at '.length));
    });
    server.on('exit', (code) => reject(new Error(`the example exited (${code}): ${serverLog.join('\n')}`)));
    setTimeout(() => reject(new Error('the example did not start within 60 s')), 60_000).unref();
}).catch((e) => fail(e.message));
const base = new URL(endpoint).origin;
const cleanup = () => { server.kill(); idp.close(); };

// A client registered for the suite's callback (RFC 7591).
const registered = await fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'conformance', redirect_uris: [`http://127.0.0.1:${CALLBACK_PORT}/callback`] }) });
if (registered.status !== 201) { cleanup(); fail(`registration answered ${registered.status}`); }
const { client_id: clientId } = await registered.json();

// The headless user agent: consent, provider, back to the suite.
async function signIn(authorizationUrl) {
    let cookie = '';
    const step = async (url, init = {}) => {
        const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers ?? {}), cookie } });
        const set = response.headers.get('set-cookie');
        if (set) cookie = set.split(';')[0];
        return response;
    };
    const consent = await step(authorizationUrl);
    const page = await consent.text();
    if (consent.status !== 200) throw new Error(`the authorization request answered ${consent.status}: ${page}`);
    const field = (name) => page.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1];
    const action = page.match(/action="([^"]*)"/)?.[1];
    const form = new URLSearchParams({ transaction: field('transaction'), csrf: field('csrf'), decision: 'approve' });
    const approved = await step(new URL(action, base), { method: 'POST', body: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const atProvider = await step(approved.headers.get('location'));
    const back = await step(atProvider.headers.get('location'));
    const toClient = back.headers.get('location');
    if (!toClient) throw new Error(`the callback answered ${back.status}: ${await back.text()}`);
    await fetch(toClient);
}

const run = spawn(suite, ['authorization', '--url', base, '--client-id', clientId, '--port', String(CALLBACK_PORT),
    '--resource', endpoint, '--output-dir', resultsDir], { stdio: ['ignore', 'pipe', 'inherit'] });
createInterface({ input: run.stdout }).on('line', (line) => {
    console.log(line);
    if (line.startsWith(`${base}/authorize?`)) signIn(line).catch((e) => console.error(`user agent: ${e.message}`));
});
const code = await new Promise((resolve) => run.on('exit', resolve));
cleanup();
if (code !== 0) {
    console.error(serverLog.slice(-40).join('\n'));
    fail(`the suite's authorization scenarios failed (exit ${code})`);
}
console.log('oauth-proxy-conformance: both authorization-server scenarios pass against the OAuth proxy');
