// `npm run check-hub` (scripts/check-hub.ts, scripts/lib/hub-check.ts) against real servers over
// loopback HTTP: the local authorization server (every requirement passes), a stand-in that
// behaves as the Knowtation Hub's provider does (the real MCP SDK v1 router), a deliberately
// non-conformant one, and lying and hostile ones (tokens the Worker refuses, redirects, a remote
// issuer that lists loopback and private endpoints, endless bodies); plus the not-checkable cases,
// --interactive and the command line. The command runs as a child process where its exit code
// and exact output matter; the remote-issuer cases run in process with DNS and the transport
// answered by the test, as no loopback server can be a remote https host.
import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthServer } from '../../demo/auth-server.mjs';
import { MAX_JWKS_BYTES } from '../../src/auth/jwks';
import { checkHub, formatReport, registrationCount, requirementOrder, type HubCheckOptions, type RequirementResult } from '../../scripts/lib/hub-check';
import { CONNECTOR_CLIENTS } from '../../scripts/lib/connector-clients';
import { HubNetwork, MAX_BODY_BYTES } from '../../scripts/lib/hub-network';
import { loopbackSignIn } from '../../scripts/lib/loopback-sign-in';
import { startHubLikeAuthServer, type HubLikeAuthServer } from '../support/node/hub-like-auth-server';
import { NONCONFORMANT_CLIENT_ID, startNonconformantAuthServer } from '../support/node/nonconformant-auth-server';
import { CookieJar, followRedirects } from '../support/node/oauth-user-agent';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORKER = 'http://127.0.0.1:8787';
const RESOURCE = `${WORKER}/mcp`;
const REDIRECT_URI = 'http://localhost:53419/oauth/callback';
const LINE = /^(pass|warn|fail|not checkable)\s+(.+?): (.+)$/;
/** The Hub's session secret in the stand-in tests (the Worker's SESSION_SECRET). */
const HUB_SECRET = 'hub-session-secret-for-check-hub-tests-0123456789';
const REGISTERING = CONNECTOR_CLIENTS.filter((client) => client.registration);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command as npm would, without blocking this process (the servers under test live here). */
function runCheckHub(args: string[], { env = {}, onStderr }: { env?: Record<string, string>; onStderr?: (text: string) => void } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/check-hub.ts'), ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      timeout: 90_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The requirement lines of a report, by requirement. */
function linesOf(stdout: string): Map<string, { status: string; why: string }> {
  const lines = new Map<string, { status: string; why: string }>();
  for (const line of stdout.trimEnd().split('\n').slice(1, -1)) {
    const match = LINE.exec(line);
    expect(match, line).not.toBeNull();
    lines.set(match![2], { status: match![1], why: match![3] });
  }
  return lines;
}

function find(lines: Map<string, { status: string; why: string }>, prefix: string): { status: string; why: string } {
  const entry = [...lines].find(([requirement]) => requirement.startsWith(prefix));
  expect(entry, prefix).toBeDefined();
  return entry![1];
}

function summaryOf(stdout: string): string {
  return stdout.trimEnd().split('\n').at(-1)!;
}

function options(issuer: string, extra: Partial<HubCheckOptions> = {}): HubCheckOptions {
  return { issuer, resource: RESOURCE, redirectUri: REDIRECT_URI, foreignResource: 'https://check-hub.invalid/mcp', timeoutMs: 5000, ...extra };
}

function byRequirement(results: RequirementResult[], prefix: string): RequirementResult {
  const result = results.find((entry) => entry.requirement.startsWith(prefix));
  expect(result, prefix).toBeDefined();
  return result!;
}

/** Secrets must never reach the output: no JWT, no code or token parameter, no client secret. */
function expectNoSecrets(text: string): void {
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
  expect(text).not.toMatch(/code=|refresh_token=|access_token|client_secret(?!_post|_basic|_jwt)/);
}

function expectLines(lines: Map<string, { status: string; why: string }>, expectations: Array<[string, string, RegExp]>): void {
  for (const [prefix, status, why] of expectations) {
    const line = find(lines, prefix);
    expect(line.status, prefix).toBe(status);
    expect(line.why, prefix).toMatch(why);
  }
}

/** A loopback HTTP server that records the paths asked of it. */
async function startRecordingServer(handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(404).end()) {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Worker env file for the command, in a fresh temporary directory. */
function envFile(lines: string[]): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'check-hub-')), '.dev.vars');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('check-hub against the local authorization server (automatic approval for loopback clients)', () => {
  let as: AuthServer;

  beforeAll(async () => {
    as = await startAuthServer({ resourceOrigin: WORKER, autoApprove: true });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('passes every requirement it can check, one line each, and exits 0; the metadata documents cannot be fetched offline', async () => {
    const run = await runCheckHub(['--issuer', as.issuer, '--resource', RESOURCE]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`check-hub: ${as.issuer} as the authorization server for ${RESOURCE}`);
    const requirements = linesOf(run.stdout);
    expect([...requirements.keys()]).toEqual(requirementOrder());
    const metadataDocuments = 'authorization requests by client ID metadata document';
    for (const [requirement, { status }] of requirements) {
      if (!requirement.startsWith(metadataDocuments)) expect(status, requirement).toBe('pass');
    }
    // oidc-provider fetches each connector's document from the internet, which a test run has not.
    expect(find(requirements, metadataDocuments)).toEqual({
      status: 'not checkable',
      why: 'Claude (claude.ai), Claude Code, ChatGPT (stable callback) and VS Code: refused (HTTP 400), and the document cannot be fetched (host not found) from here either',
    });
    expect(summaryOf(run.stdout)).toBe(`${requirementOrder().length - 1} pass, 0 warn, 0 fail, 1 not checkable`);
    expectLines(requirements, [
      ['access token the Worker accepts', 'pass', /^accepted through the key set as an RFC 9068 access token$/],
      ['access token aud', 'pass', new RegExp(`^aud is ${RESOURCE}$`)],
      ['access token scope or scopes', 'pass', /^scope vault:read$/],
      ['hosted context', 'pass', /^in the token: effective_canister_user_id, allowed_vault_ids$/],
      ['refuses a foreign resource', 'pass', /^https:\/\/check-hub\.invalid\/mcp refused at the authorization endpoint$/],
      ['iss on the authorization response', 'pass', /^advertised, and both redirects to the client carry iss$/],
      ["a native client's loopback redirect", 'pass', /^port 53420 instead of 53419 is accepted \(a code came back\)$/],
      ['offline_access in scopes_supported', 'pass', /^listed, asked for, and a refresh token was issued$/],
      ['a refresh gives', 'pass', /^the refreshed access token is accepted \(through the key set\)$/],
      ['refresh token rotation', 'pass', /^a new refresh token at each use; the used one is refused with invalid_grant$/],
      ['registers Claude (claude.ai)', 'pass', /^https:\/\/claude\.ai\/api\/mcp\/auth_callback, client_secret_post$/],
      ['registers VS Code', 'pass', /, none, native$/],
      ['JWK set', 'pass', /^\/jwks: 1 public key\(s\), each with a kid$/],
    ]);
    expectNoSecrets(run.stdout);
  });

  it('prints none of the codes, tokens, client ids and secrets it handled', async () => {
    const handled = new Set<string>();
    // The real network, recorded: every code in a Location, every token and client credential in a body.
    const transport = async (url: URL, init: RequestInit) => {
      const response = await fetch(url, init);
      const location = response.headers.get('location');
      const code = location ? URL.parse(location, url)?.searchParams.get('code') : null;
      if (code) handled.add(code);
      const body = (await response.clone().json().catch(() => ({}))) as Record<string, unknown>;
      for (const name of ['access_token', 'refresh_token', 'id_token', 'client_id', 'client_secret']) {
        if (typeof body[name] === 'string') handled.add(body[name] as string);
      }
      return response;
    };
    const checkOptions = options(as.issuer, { network: { transport } });
    const report = formatReport(checkOptions, await checkHub(checkOptions));
    // Codes from three requests, two access tokens and refresh tokens, nine client ids, two client secrets.
    expect(handled.size).toBeGreaterThanOrEqual(18);
    for (const secret of handled) expect(report).not.toContain(secret);
  });

  it('names the issuer gap when the issuer is given with a trailing slash (RFC 8414 section 3.3)', async () => {
    const results = await checkHub(options(`${as.issuer}/`));
    const issuer = byRequirement(results, 'issuer');
    expect(issuer.status).toBe('fail');
    expect(issuer.why).toContain(`the metadata says "${as.issuer}"`);
  });

  it('names a vault the user may not read as a foreign resource that is refused', async () => {
    const results = await checkHub(options(as.issuer, { foreignResource: `${WORKER}/mcp/vaults/not-allowed` }));
    expect(byRequirement(results, 'refuses a foreign resource')).toMatchObject({ status: 'pass' });
  });
});

describe('check-hub against a stand-in for the Hub\'s provider (HS256 mcp_access, no aud, a scopes list, the SDK v1 router)', () => {
  let hub: HubLikeAuthServer;

  // A fresh server per test: each run of check-hub spends 12 of the SDK's 20 registrations an hour.
  beforeEach(async () => {
    hub = await startHubLikeAuthServer({ sessionSecret: HUB_SECRET });
  });
  afterEach(async () => {
    await hub?.close();
  });

  /** Every line the Hub's code gives, with the secret given. */
  const hubExpectations = (): Array<[string, string, RegExp]> => [
    ['authorization server metadata', 'pass', /^RFC 8414 metadata at \/\.well-known\/oauth-authorization-server$/],
    ['issuer identical', 'pass', /\/$/],
    ['authorization and token endpoints', 'pass', /^\/authorize and \/token$/],
    ['PKCE with S256', 'pass', /^S256 advertised, and a wrong code_verifier is refused$/],
    ['client registration', 'pass', /^dynamic registration at \/register; client ID metadata documents are not advertised \(MCP 2026-07-28 deprecates/],
    ['token endpoint auth methods', 'pass', /lists none and client_secret_post$/],
    ['refuses unsafe redirect URIs', 'fail', /^accepted \(or did not refuse\) http on a host that is not loopback and a fragment$/],
    ['authorization requests by client ID metadata document', 'not checkable', /^client_id_metadata_document_supported is not true/],
    ['authorization code flow', 'pass', /^authorized a public client \(registered as mcp-remote registers\) and redeemed the code$/],
    ["a native client's loopback redirect", 'fail', /^port 53420 instead of 53419 is refused \(HTTP 400 invalid_request\): VS Code, Claude Code and mcp-remote/],
    ['iss on the authorization response', 'warn', /^not sent nor advertised .*ChatGPT \(stable callback\) https:\/\/chatgpt\.com\/connector_platform_oauth_redirect \(used only when the server sends iss/],
    ['refuses a foreign resource', 'fail', /^a token was issued for https:\/\/check-hub\.invalid\/mcp$/],
    [
      'access token the Worker accepts',
      'pass',
      /^accepted with the shared secret as an mcp_access token; the Worker needs SESSION_SECRET shared with the Hub \(given by \$HUB_SECRET\) and LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE=true while its tokens lack aud$/,
    ],
    ['access token claims', 'pass', /^the shared-secret \(exp, sub, iat\) claims are present; client_id the client$/],
    ['access token aud', 'warn', /^no aud: not bound to http:\/\/127\.0\.0\.1:8787\/mcp; the Worker serves it only with LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE=true/],
    ['access token scope or scopes', 'pass', /^scopes list vault:read$/],
    ['access token lifetime', 'pass', /^3600 s$/],
    ['hosted context', 'warn', new RegExp(`^not in the token: set the Worker's HOSTED_CONTEXT_URL to the Hub's GET /api/v1/hosted-context \\(here ${hub.origin}/api/v1/hosted-context\\)`)],
    ['offline_access in scopes_supported', 'warn', /^offline_access is not in scopes_supported, .*this server issued a refresh token without it$/],
    ['a refresh gives', 'pass', /^the refreshed access token is accepted \(with the shared secret\)$/],
    ['refresh token rotation', 'fail', /^the used refresh token right after the refresh answered HTTP 500 server_error: it must be refused with invalid_grant$/],
    ['JWK set', 'pass', /^no jwks_uri, and none needed: the access tokens are verified with the shared secret$/],
  ];

  it('judges its tokens as the Worker does with the shared secret, names every gap, and exits 1', async () => {
    const run = await runCheckHub(['--issuer', hub.issuer, '--resource', RESOURCE, '--secret-env', 'HUB_SECRET'], { env: { HUB_SECRET } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const lines = linesOf(run.stdout);
    expect([...lines.keys()]).toEqual(requirementOrder());
    const expectations = hubExpectations();
    expectLines(lines, expectations);
    for (const client of REGISTERING) expect(find(lines, `registers ${client.name} `).status, client.name).toBe('pass');
    const count = (status: string) => expectations.filter(([, s]) => s === status).length + (status === 'pass' ? REGISTERING.length : 0);
    expect(summaryOf(run.stdout)).toBe(`${count('pass')} pass, ${count('warn')} warn, ${count('fail')} fail, ${count('not checkable')} not checkable`);
    expectNoSecrets(run.stdout);
    expect(run.stdout).not.toContain(HUB_SECRET);
  });

  it('with the Worker\'s env file: the legacy setting and HOSTED_CONTEXT_URL as set are what the token is judged with', async () => {
    const hostedContext = `${hub.origin}/api/v1/hosted-context`;
    const withLegacy = await runCheckHub([
      '--issuer', hub.issuer, '--resource', RESOURCE,
      '--env-file', envFile([`SESSION_SECRET=${HUB_SECRET}`, 'LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE=true', `HOSTED_CONTEXT_URL=${hostedContext}`]),
    ]);
    const lines = linesOf(withLegacy.stdout);
    expect(find(lines, 'access token the Worker accepts')).toEqual({ status: 'pass', why: 'accepted with the shared secret as an mcp_access token; the Worker needs SESSION_SECRET shared with the Hub (given by .dev.vars)' });
    expect(find(lines, 'hosted context')).toEqual({ status: 'pass', why: `not in the token; HOSTED_CONTEXT_URL is set (${hostedContext}), from which the Worker takes it` });
    expect(withLegacy.stdout).not.toContain(HUB_SECRET);

    const withoutLegacy = await runCheckHub(['--issuer', hub.issuer, '--resource', RESOURCE, '--env-file', envFile([`SESSION_SECRET=${HUB_SECRET}`, 'LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE=false'])]);
    expect(find(linesOf(withoutLegacy.stdout), 'access token the Worker accepts')).toEqual({
      status: 'fail',
      why: 'the Worker refuses it: bad_audience (aud does not name this resource)',
    });
  });

  it('a wrong or short secret is the Worker\'s refusal or its configuration problem, never the value', async () => {
    const wrong = await runCheckHub(['--issuer', hub.issuer, '--resource', RESOURCE, '--secret-env', 'HUB_SECRET'], { env: { HUB_SECRET: `${HUB_SECRET}-not-the-hub's` } });
    expect(find(linesOf(wrong.stdout), 'access token the Worker accepts')).toEqual({ status: 'fail', why: 'the Worker refuses it: bad_signature (the signature does not verify)' });
    const short = await runCheckHub(['--issuer', hub.issuer, '--resource', RESOURCE, '--secret-env', 'HUB_SECRET'], { env: { HUB_SECRET: 'too-short' } });
    expect(find(linesOf(short.stdout), 'access token the Worker accepts')).toEqual({
      status: 'fail',
      why: 'the Worker would not start with the settings given: SESSION_SECRET must be at least 32 characters',
    });
    expect(short.stdout).not.toContain('too-short');
  });

  it('without the secret, says how to give it rather than failing the Hub\'s tokens', async () => {
    const results = await checkHub(options(hub.issuer));
    expect(byRequirement(results, 'access token the Worker accepts')).toEqual(
      expect.objectContaining({ status: 'not checkable', why: expect.stringMatching(/^signed with a shared secret \(HS256\), and none was given: pass --secret-env or --env-file/) }),
    );
  });

  it('a loopback redirect on another port passes where the server relaxes the port, as the SDK now does (RFC 8252 section 7.3)', async () => {
    const relaxed = await startHubLikeAuthServer({ sessionSecret: HUB_SECRET, redirectUriMatching: 'sdk' });
    try {
      const results = await checkHub(options(relaxed.issuer));
      expect(byRequirement(results, "a native client's loopback redirect")).toMatchObject({ status: 'pass', why: 'port 53420 instead of 53419 is accepted (a code came back)' });
    } finally {
      await relaxed.close();
    }
  });

  it.each([
    ['refused with invalid_grant', 'invalid_grant', 'pass', 'a new refresh token at each use; the used one is refused with invalid_grant'],
    [
      'kept until its successor is first used, then refused (OAuth 2.1 section 4.3.1 rotation with a retry allowance)',
      'grace',
      'pass',
      'a new refresh token at each use; the used one stays valid until the new one is first used, then is refused with invalid_grant',
    ],
    ['still honoured after its successor was used', 'kept', 'fail', 'the used refresh token still works after its successor was used'],
    ['answered 500 (the Hub\'s provider throws a plain Error)', 'server_error', 'fail', 'the used refresh token right after the refresh answered HTTP 500 server_error: it must be refused with invalid_grant'],
  ] as const)('a replayed refresh token %s: %s', async (_what, refreshReplay, status, why) => {
    const rotating = await startHubLikeAuthServer({ sessionSecret: HUB_SECRET, refreshReplay });
    try {
      const results = await checkHub(options(rotating.issuer));
      expect(byRequirement(results, 'refresh token rotation')).toMatchObject({ status, why });
    } finally {
      await rotating.close();
    }
  });

  it('where sign-in goes on to Google, the token checks are not checkable and say how to sign in', async () => {
    const google = await startHubLikeAuthServer({ sessionSecret: HUB_SECRET, signIn: 'google' });
    try {
      const results = await checkHub(options(google.issuer));
      expect(byRequirement(results, 'authorization code flow')).toMatchObject({
        status: 'not checkable',
        why: 'the server sends the browser to accounts.google.com to sign in: a person must act; run with --interactive to sign in in a browser',
      });
      // A redirect on to the sign-in is an accepted request: the port check needs no person.
      expect(byRequirement(results, "a native client's loopback redirect").status).toBe('fail');
    } finally {
      await google.close();
    }
  });

  it(`registers ${registrationCount(REDIRECT_URI)} clients, and names the server's registration limit (the SDK's 20 per hour) when it is reached`, async () => {
    const limited = await startHubLikeAuthServer({ sessionSecret: HUB_SECRET });
    try {
      // Another client on this address already spent 12 of the hour's 20.
      for (let i = 0; i < 12; i += 1) {
        const response = await fetch(`${limited.origin}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: ['http://localhost:1/cb'], token_endpoint_auth_method: 'none' }),
        });
        expect(response.status).toBe(201);
      }
      const results = await checkHub(options(limited.issuer));
      const limit = /^the server's registration limit answered HTTP 429 at check-hub's registration 9, retry after \d+ s$/;
      const connectorLines = REGISTERING.map((client) => byRequirement(results, `registers ${client.name} `));
      // mcp-remote (the flows' client) first, then the table's order: the 9th is the last row.
      expect(connectorLines.filter((line) => line.status === 'pass')).toHaveLength(8);
      expect(connectorLines.at(-1)).toMatchObject({ status: 'not checkable', why: expect.stringMatching(limit) });
      expect(byRequirement(results, 'refuses unsafe redirect URIs')).toMatchObject({ status: 'not checkable', why: expect.stringMatching(limit) });
      // The flows ran on the registration they got first.
      expect(byRequirement(results, 'authorization code flow').status).toBe('pass');
    } finally {
      await limited.close();
    }
  });
});

describe('check-hub against a non-conformant authorization server', () => {
  let server: Awaited<ReturnType<typeof startNonconformantAuthServer>>;

  beforeAll(async () => {
    server = await startNonconformantAuthServer(REDIRECT_URI);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('names each gap and exits 1', async () => {
    const run = await runCheckHub(['--issuer', server.issuer, '--resource', RESOURCE, '--client-id', NONCONFORMANT_CLIENT_ID]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const lines = linesOf(run.stdout);
    expect([...lines.keys()]).toEqual(requirementOrder());
    const expectations: Array<[string, string, RegExp]> = [
      ['authorization server metadata', 'pass', /^OpenID discovery at \/\.well-known\/openid-configuration/],
      ['issuer', 'fail', new RegExp(`the metadata says "${server.issuer}/"`)],
      ['authorization and token endpoints', 'pass', /^\/authorize and \/token$/],
      ['PKCE with S256', 'fail', /^S256 is not in code_challenge_methods_supported \(MCP clients refuse to continue without it\) and a code was redeemed with the wrong code_verifier/],
      ['client registration', 'fail', /no registration_endpoint and no client_id_metadata_document_supported/],
      ['token endpoint auth methods', 'fail', /lacks none \(lists client_secret_post\)/],
      ['refuses unsafe redirect URIs', 'not checkable', /^no usable registration endpoint$/],
      ['authorization requests by client ID metadata document', 'not checkable', /is not true/],
      ['authorization code flow', 'pass', /\(pre-registered\)/],
      ["a native client's loopback redirect", 'fail', /^port 53420 instead of 53419 is refused \(HTTP 400 invalid_request\)/],
      ['iss on the authorization response', 'warn', /^not sent nor advertised/],
      ['refuses a foreign resource', 'fail', /a token was issued for https:\/\/check-hub\.invalid\/mcp/],
      ['access token the Worker accepts', 'not checkable', /^signed with a shared secret \(HS256\), and none was given/],
      ['access token claims', 'pass', /^the shared-secret \(exp, sub, iat\) claims are present; client_id absent$/],
      ['access token aud', 'warn', /^no aud: not bound to http:\/\/127\.0\.0\.1:8787\/mcp/],
      ['access token scope or scopes', 'pass', /^scope vault:read$/],
      ['access token lifetime', 'fail', /^86400 s/],
      // A role claim alone is not a hosted context (src/auth/jwt.ts HOSTED_CONTEXT_CLAIMS): the Hub's session role is its gateway's.
      ['hosted context', 'warn', /^not in the token: set the Worker's HOSTED_CONTEXT_URL/],
      ['offline_access in scopes_supported', 'fail', /^grant_types_supported lacks refresh_token and offline_access is not in scopes_supported and no refresh token was issued/],
      ['a refresh gives', 'not checkable', /no refresh token/],
      ['refresh token rotation', 'not checkable', /no refresh token/],
      ['JWK set', 'pass', /^no jwks_uri, and none needed/],
    ];
    expectLines(lines, expectations);
    for (const client of REGISTERING) {
      expect(find(lines, `registers ${client.name} `)).toEqual({ status: 'not checkable', why: 'no usable registration endpoint' });
    }
    expect(summaryOf(run.stdout)).toBe(`6 pass, 3 warn, 8 fail, ${REGISTERING.length + 5} not checkable`);
    expectNoSecrets(run.stdout);
  });

  it('with its secret, its day-long HS256 token is one the Worker takes, with the legacy setting', async () => {
    const results = await checkHub(options(server.issuer, { clientId: NONCONFORMANT_CLIENT_ID, worker: { secrets: { SESSION_SECRET: server.secret }, origin: '$SECRET' } }));
    expect(byRequirement(results, 'access token the Worker accepts')).toMatchObject({ status: 'pass', why: expect.stringContaining('LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE=true while its tokens lack aud') });
  });

  it('an HS256 token typed session, which the Worker reads as a sign-in session, is not an OAuth access token', async () => {
    const session = await startNonconformantAuthServer(REDIRECT_URI, { type: 'session', aud: RESOURCE, exp: Math.floor(Date.now() / 1000) + 600 });
    try {
      const results = await checkHub(options(session.issuer, { clientId: NONCONFORMANT_CLIENT_ID, worker: { secrets: { SESSION_SECRET: session.secret }, origin: '$SECRET' } }));
      expect(byRequirement(results, 'access token the Worker accepts')).toMatchObject({
        status: 'fail',
        why: "the Worker reads it as a session token, not an OAuth access token: an authorization server's token must be typed mcp_access (or at+jwt)",
      });
      expect(byRequirement(results, 'access token claims')).toMatchObject({ status: 'fail', why: expect.stringContaining('type is "session"') });
    } finally {
      await session.close();
    }
  });

  it('says what to pass when there is neither registration nor a client id', async () => {
    const results = await checkHub(options(server.issuer));
    expect(byRequirement(results, 'authorization code flow')).toMatchObject({ status: 'not checkable', why: expect.stringContaining('--client-id') });
    for (const prefix of ['access token the Worker accepts', 'access token claims', 'access token aud', 'refuses a foreign resource']) {
      expect(byRequirement(results, prefix).status, prefix).toBe('not checkable');
    }
  });
});

describe('check-hub on tokens that look conformant but the Worker refuses (its own verification, src/auth/jwt.ts)', () => {
  const now = Math.floor(Date.now() / 1000);
  it.each([
    ['type "session" from an OAuth server', { type: 'session' }, 'wrong_type'],
    ['iat ten minutes ahead', { iat: now + 600 }, 'not_yet_valid'],
    ['a blank sub', { sub: ' ' }, 'bad_claims'],
    ['allowed_vault_ids a string', { allowed_vault_ids: 'default' }, 'bad_claims'],
    ['scopes not a list', { scopes: 'vault:read' }, 'bad_claims'],
    ['no read scope', { scope: 'profile' }, 'insufficient_scope'],
    ['aud a parent of another resource', { aud: `${WORKER}/other` }, 'bad_audience'],
    ['iss another issuer', { iss: 'https://other.example' }, 'bad_issuer'],
  ])('%s: fails with the Worker\'s reason %s', async (_what, lie, reason) => {
    const server = await startNonconformantAuthServer(REDIRECT_URI, { aud: RESOURCE, ...lie }, { keySet: true });
    try {
      const results = await checkHub(options(server.issuer, { clientId: NONCONFORMANT_CLIENT_ID }));
      const line = byRequirement(results, 'access token the Worker accepts');
      expect(line.status).toBe('fail');
      expect(line.why).toMatch(new RegExp(`^the Worker refuses it: ${reason} \\(`));
    } finally {
      await server.close();
    }
  });

  it('the same token without the lie is accepted (the control)', async () => {
    const server = await startNonconformantAuthServer(REDIRECT_URI, { aud: RESOURCE }, { keySet: true });
    try {
      const results = await checkHub(options(server.issuer, { clientId: NONCONFORMANT_CLIENT_ID }));
      expect(byRequirement(results, 'access token the Worker accepts')).toMatchObject({ status: 'pass', why: 'accepted through the key set as an RFC 9068 access token' });
      expect(byRequirement(results, 'access token claims').status).toBe('pass');
      expect(byRequirement(results, 'JWK set').status).toBe('pass');
    } finally {
      await server.close();
    }
  });

  it('a key set that redirects is never followed, by check-hub or by the Worker, and every key-set token is refused', async () => {
    const elsewhere = await startRecordingServer();
    const server = await startNonconformantAuthServer(REDIRECT_URI, { aud: RESOURCE }, { keySet: true, jwksRedirect: `${elsewhere.origin}/jwks` });
    try {
      const results = await checkHub(options(server.issuer, { clientId: NONCONFORMANT_CLIENT_ID }));
      expect(byRequirement(results, 'JWK set')).toMatchObject({ status: 'fail', why: expect.stringMatching(/^\/jwks redirects \(HTTP 302 to 127\.0\.0\.1:\d+\): the Worker follows no redirect/) });
      expect(byRequirement(results, 'access token the Worker accepts')).toMatchObject({ status: 'fail', why: expect.stringMatching(/^the Worker refuses it: jwks_unavailable/) });
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await server.close();
      await elsewhere.close();
    }
  });
});

describe('check-hub on the JWK set', () => {
  let server: Server;
  let origin = '';
  let jwks: { body: string; uri?: string } = { body: '' };

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: origin, authorization_endpoint: `${origin}/auth`, token_endpoint: `${origin}/token`, jwks_uri: jwks.uri ?? `${origin}/jwks` }));
      } else if (req.url === '/jwks') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(jwks.body);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const ecKey = (kid?: string) => ({ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', ...(kid ? { kid } : {}) });

  it.each([
    ['two public keys with kids', { keys: [ecKey('a'), ecKey('b')] }, undefined, 'pass', '/jwks: 2 public key(s), each with a kid'],
    ['a key without a kid', { keys: [ecKey('a'), ecKey()] }, undefined, 'fail', '/jwks: 1 of 2 keys without a kid'],
    ['two keys with one kid', { keys: [ecKey('a'), ecKey('a')] }, undefined, 'fail', '/jwks: two keys share a kid'],
    ['a symmetric key', { keys: [ecKey('a'), { kty: 'oct', kid: 'h', k: 'c2VjcmV0' }] }, undefined, 'fail', '/jwks: 1 key(s) with private or symmetric key material published'],
    ['a private key', { keys: [{ ...ecKey('a'), d: 'jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI' }] }, undefined, 'fail', '/jwks: 1 key(s) with private or symmetric key material published'],
    ['no keys', { keys: [] }, undefined, 'fail', '/jwks has no keys'],
    ['an http set on a host that is not loopback', { keys: [ecKey('a')] }, 'http://keys.example/jwks', 'fail', 'jwks_uri refused (plain http off loopback)'],
  ])('%s', async (_what, set, uri, status, why) => {
    jwks = { body: JSON.stringify(set), uri };
    const results = await checkHub(options(origin));
    expect(byRequirement(results, 'JWK set')).toEqual(expect.objectContaining({ status, why }));
  });

  it('takes a set of exactly 64 KiB and refuses one byte more, as the Worker does', async () => {
    const sized = (bytes: number) => {
      const base = JSON.stringify({ keys: [ecKey('a')], padding: '' });
      return JSON.stringify({ keys: [ecKey('a')], padding: 'p'.repeat(bytes - base.length) });
    };
    jwks = { body: sized(MAX_JWKS_BYTES) };
    expect(byRequirement(await checkHub(options(origin)), 'JWK set').status).toBe('pass');
    jwks = { body: sized(MAX_JWKS_BYTES + 1) };
    expect(byRequirement(await checkHub(options(origin)), 'JWK set')).toMatchObject({
      status: 'fail',
      why: '/jwks is over 65536 bytes: the Worker refuses a larger set unread',
    });
  });
});

describe('check-hub reads every body within a cap: a 256 MiB answer is not taken into memory', () => {
  const HUGE = 256 * 1024 * 1024;

  /** A server whose `path` streams up to 256 MiB (declared or chunked) and counts what it managed to send. */
  async function startEndlessServer(streamPath: string, { declare }: { declare: boolean }) {
    const sent = { bytes: 0 };
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const recording = await startRecordingServer((req, res) => {
      if (req.url === '/.well-known/oauth-authorization-server' && streamPath !== req.url) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: recording.origin, authorization_endpoint: `${recording.origin}/auth`, token_endpoint: `${recording.origin}/token`, jwks_uri: `${recording.origin}/jwks` }));
        return;
      }
      if (req.url !== streamPath) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(HUGE) } : {}) });
      res.write('{"keys":[');
      const pump = () => {
        while (sent.bytes < HUGE && !res.destroyed) {
          sent.bytes += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    return { ...recording, sent };
  }

  it.each([
    ['the key set, chunked', '/jwks', false, 'JWK set', /^\/jwks is over 65536 bytes: the Worker refuses a larger set unread$/],
    ['the key set, declared', '/jwks', true, 'JWK set', /^\/jwks is over 65536 bytes: the Worker refuses a larger set unread$/],
    ['the metadata, chunked', '/.well-known/oauth-authorization-server', false, 'authorization server metadata', new RegExp(`a body over ${MAX_BODY_BYTES} bytes \\(read stopped at the cap\\)`)],
  ])('%s: refused at the cap, and the server could send only a small part of it', async (_what, streamPath, declare, requirement, why) => {
    const server = await startEndlessServer(streamPath, { declare });
    try {
      const results = await checkHub(options(server.origin));
      expect(byRequirement(results, requirement)).toMatchObject({ status: 'fail', why: expect.stringMatching(why) });
      // What the kernel's socket buffers took before the reader let go: far from 256 MiB.
      expect(server.sent.bytes).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await server.close();
    }
  });
});

describe('check-hub stays on the Hub\'s side of the wire: a remote https issuer and its endpoints (DNS and transport answered by the test)', () => {
  const PUBLIC = '93.184.216.34';

  /** DNS as the test says it: every other name is public. */
  const resolve = (names: Record<string, string>) => async (hostname: string) => [names[hostname] ?? PUBLIC];

  /** A transport that answers from a table of URLs, and records every URL asked. */
  function answering(table: Record<string, () => Response>) {
    const asked: string[] = [];
    const transport = async (url: URL) => {
      asked.push(url.href);
      const answer = table[url.href];
      if (!answer) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
      return answer();
    };
    return { asked, transport };
  }

  const json = (body: unknown, status = 200) => () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('refuses endpoints on loopback, private and plain-http addresses, and never asks them anything', async () => {
    const loopback = await startRecordingServer();
    const port = new URL(loopback.origin).port;
    const { asked, transport } = answering({
      'https://hub.example/.well-known/oauth-authorization-server': json({
        issuer: 'https://hub.example',
        authorization_endpoint: `http://127.0.0.1:${port}/authorize`,
        token_endpoint: `https://127.0.0.1:${port}/token`,
        registration_endpoint: 'https://internal.example/register',
        jwks_uri: 'https://rebind.example/jwks',
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      }),
    });
    try {
      const results = await checkHub(
        options('https://hub.example', { network: { resolve: resolve({ 'internal.example': '10.0.0.7', 'rebind.example': '127.0.0.1' }), transport } }),
      );
      expect(byRequirement(results, 'authorization and token endpoints')).toMatchObject({
        status: 'fail',
        why: `authorization_endpoint refused (plain http (every hop must be https for a remote issuer)) and token_endpoint refused (127.0.0.1 is a loopback address (a remote issuer's endpoints must be public))`,
      });
      expect(byRequirement(results, 'client registration')).toMatchObject({
        status: 'fail',
        why: "registration_endpoint refused (internal.example resolves to a private or reserved address (10.0.0.7) (a remote issuer's endpoints must be public))",
      });
      expect(byRequirement(results, 'JWK set')).toMatchObject({
        status: 'fail',
        why: "jwks_uri refused (rebind.example resolves to a loopback address (127.0.0.1) (a remote issuer's endpoints must be public))",
      });
      expect(byRequirement(results, `registers ${REGISTERING[0].name} `)).toMatchObject({ status: 'not checkable', why: 'no usable registration endpoint' });
      expect(asked).toEqual(['https://hub.example/.well-known/oauth-authorization-server']);
      expect(loopback.requests).toEqual([]);
    } finally {
      await loopback.close();
    }
  });

  it('does not follow a key set\'s redirect, to plain http or anywhere', async () => {
    const { asked, transport } = answering({
      'https://hub.example/.well-known/oauth-authorization-server': json({ issuer: 'https://hub.example', authorization_endpoint: 'https://hub.example/authorize', token_endpoint: 'https://hub.example/token', jwks_uri: 'https://hub.example/jwks' }),
      'https://hub.example/jwks': () => new Response(null, { status: 302, headers: { location: 'http://keys.example/jwks' } }),
    });
    const results = await checkHub(options('https://hub.example', { network: { resolve: resolve({}), transport } }));
    expect(byRequirement(results, 'JWK set')).toMatchObject({ status: 'fail', why: '/jwks redirects (HTTP 302 to keys.example): the Worker follows no redirect, so every key-set token would be answered 503' });
    expect(asked.some((url) => url.includes('keys.example'))).toBe(false);
  });

  it('refuses an issuer whose own name resolves to a private address', async () => {
    const { asked, transport } = answering({});
    const results = await checkHub(options('https://hub.example', { network: { resolve: resolve({ 'hub.example': '192.168.1.20' }), transport } }));
    expect(byRequirement(results, 'authorization server metadata')).toMatchObject({
      status: 'fail',
      why: expect.stringContaining("/.well-known/oauth-authorization-server refused: hub.example resolves to a private or reserved address (192.168.1.20)"),
    });
    expect(asked).toEqual([]);
  });

  it('checks the address again when it connects: a name that resolves elsewhere the second time (DNS rebinding) reaches nothing', async () => {
    let connections = 0;
    const listener = createTcpServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    const port = (listener.address() as AddressInfo).port;
    let lookups = 0;
    // Public for the check before the request, loopback for the connection.
    const rebinding = async () => [(lookups += 1) === 1 ? PUBLIC : '127.0.0.1'];
    const network = new HubNetwork({ issuer: 'https://hub.example', timeoutMs: 2000, resolve: rebinding });
    try {
      const answer = await network.request(`https://rebind.example:${port}/jwks`);
      expect(answer).toEqual({ failure: "rebind.example resolves to a loopback address (127.0.0.1) (a remote issuer's endpoints must be public)" });
      expect(lookups).toBe(2);
      expect(connections).toBe(0);
    } finally {
      await network.close();
      await new Promise((done) => listener.close(done));
    }
  });

  it('where the server offers only client ID metadata documents: each connector\'s request reaches a page or is named refused, and the clients that cannot connect are named', async () => {
    const documents = CONNECTOR_CLIENTS.filter((client) => client.metadataDocument);
    const refusedByServer = 'https://vscode.dev/oauth/client-metadata.json';
    const table: Record<string, () => Response> = {
      'https://hub.example/.well-known/oauth-authorization-server': json({
        issuer: 'https://hub.example',
        authorization_endpoint: 'https://hub.example/authorize',
        token_endpoint: 'https://hub.example/token',
        response_types_supported: ['code'],
        token_endpoint_auth_methods_supported: ['none'],
        client_id_metadata_document_supported: true,
      }),
    };
    for (const client of documents) {
      const { clientId, redirectUri } = client.metadataDocument!;
      table[clientId] = json({ client_id: clientId, redirect_uris: [redirectUri.replace(':{port}', '')], token_endpoint_auth_method: 'none' });
    }
    const asked: string[] = [];
    const transport = async (url: URL) => {
      asked.push(url.href);
      if (url.origin === 'https://hub.example' && url.pathname === '/authorize') {
        const clientId = url.searchParams.get('client_id');
        if (clientId === refusedByServer) return json({ error: 'invalid_client' }, 400)();
        return new Response('<html>Sign in to the Hub</html>', { status: 200, headers: { 'content-type': 'text/html' } });
      }
      const answer = table[url.href];
      if (!answer) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
      return answer();
    };
    const results = await checkHub(options('https://hub.example', { network: { resolve: resolve({}), transport } }));
    expect(byRequirement(results, 'authorization requests by client ID metadata document')).toEqual(
      expect.objectContaining({ status: 'fail', why: 'refused VS Code (HTTP 400 invalid_client); accepted Claude (claude.ai), Claude Code and ChatGPT (stable callback)' }),
    );
    expect(byRequirement(results, 'client registration')).toEqual(
      expect.objectContaining({ status: 'warn', why: 'client ID metadata documents only: Cursor, mcp-remote and MCP Inspector register only dynamically and cannot connect' }),
    );
    // Claude Code's document lists a port-less loopback callback; it authorizes on a port of its own.
    expect(asked.some((url) => url.includes('client_id=https%3A%2F%2Fclaude.ai%2Foauth%2Fclaude-code-client-metadata') && url.includes('redirect_uri=http%3A%2F%2Flocalhost%3A53683%2Fcallback'))).toBe(true);
  });
});

describe('check-hub on what a registration is answered with (RFC 7591 section 3.2.1)', () => {
  it('another token endpoint auth method than the connector asked for is a warning; client_secret_post without a secret is a failure', async () => {
    const registrations: Array<Record<string, unknown>> = [];
    const transport = async (url: URL, init: RequestInit) => {
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return Response.json({
          issuer: 'https://hub.example',
          authorization_endpoint: 'https://hub.example/authorize',
          token_endpoint: 'https://hub.example/token',
          registration_endpoint: 'https://hub.example/register',
          response_types_supported: ['code'],
          token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
        });
      }
      if (url.pathname === '/register') {
        const asked = JSON.parse(String(init.body)) as Record<string, unknown>;
        registrations.push(asked);
        // claude.ai's client_secret_post is answered as a public client; claude.com's keeps the method but gets no secret.
        const method = asked.client_name === 'check-hub (Claude (claude.ai))' ? 'none' : asked.token_endpoint_auth_method;
        return Response.json({ ...asked, token_endpoint_auth_method: method, client_id: `client-${registrations.length}` }, { status: 201 });
      }
      return new Response(null, { status: 404 });
    };
    const results = await checkHub(options('https://hub.example', { network: { resolve: async () => ['93.184.216.34'], transport } }));
    expect(byRequirement(results, 'registers Claude (claude.ai) ')).toEqual(
      expect.objectContaining({
        status: 'warn',
        why: 'registered https://claude.ai/api/mcp/auth_callback, client_secret_post, but answered token_endpoint_auth_method none: the client must use what the server answers (RFC 7591 section 3.2.1)',
      }),
    );
    expect(byRequirement(results, 'registers Claude (claude.com) ')).toEqual(
      expect.objectContaining({ status: 'fail', why: 'registered for client_secret_post without a client_secret: Claude (claude.com) cannot authenticate at the token endpoint' }),
    );
    // As each connector sends it: VS Code's grants filtered by the server's (none listed here: all three), application_type where it sends one.
    const vscode = registrations.find((body) => body.client_name === 'check-hub (VS Code)')!;
    expect(vscode).toMatchObject({ application_type: 'native', grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] });
    expect(registrations.find((body) => body.client_name === 'check-hub (Cursor)')).not.toHaveProperty('application_type');
  });
});

describe('check-hub --interactive takes only the answer to its own request', () => {
  it('a request to the loopback port without the request\'s state is refused and not taken; the real answer is', async () => {
    const signIn = loopbackSignIn({ waitMs: 10_000, write: () => {} });
    const redirectUri = 'http://127.0.0.1:18742/oauth/callback';
    const authorization = new URL('https://hub.example/authorize?state=the-state');
    const answer = signIn(authorization, redirectUri);
    // Wait for the listener.
    let forged: Response | undefined;
    for (let attempt = 0; attempt < 50 && !forged; attempt += 1) {
      forged = await fetch(`${redirectUri}?code=forged&state=another`).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return undefined;
      });
    }
    expect(forged!.status).toBe(404);
    const real = await fetch(`${redirectUri}?code=the-code&state=the-state`);
    expect(real.status).toBe(200);
    expect(await real.text()).not.toContain('the-code');
    const params = await answer;
    expect(params).toBeInstanceOf(URLSearchParams);
    expect((params as URLSearchParams).get('code')).toBe('the-code');
  });
});

describe('check-hub where a person must act, or nothing answers', () => {
  let consent: AuthServer;

  beforeAll(async () => {
    consent = await startAuthServer({ resourceOrigin: WORKER });
  });
  afterAll(async () => {
    await consent?.close();
  });

  it('a consent page: the token checks are not checkable (and say why), the rest still checked, exit 0', async () => {
    const run = await runCheckHub(['--issuer', consent.issuer, '--resource', RESOURCE]);
    expect(run.code).toBe(0);
    const lines = linesOf(run.stdout);
    const flow = find(lines, 'authorization code flow');
    expect(flow.status).toBe('not checkable');
    expect(flow.why).toMatch(new RegExp(`^the server shows a page at 127\\.0\\.0\\.1:${consent.port}/interaction/[A-Za-z0-9_-]+ \\(sign-in or consent\\): a person must approve; run with --interactive`));
    for (const prefix of ['access token the Worker accepts', 'access token claims', 'access token aud', 'access token scope', 'access token lifetime', 'hosted context', 'offline_access', 'a refresh gives', 'refresh token rotation']) {
      expect(find(lines, prefix).status, prefix).toBe('not checkable');
    }
    // Refused before any page, so still checked; and that redirect carries iss.
    expect(find(lines, 'refuses a foreign resource').status).toBe('pass');
    expect(find(lines, 'iss on the authorization response')).toEqual({ status: 'pass', why: 'advertised, and the redirect to the client carries iss' });
    expect(find(lines, 'PKCE with S256').why).toMatch(/^S256 advertised \(enforcement not checkable: the server shows a page/);
    expect(find(lines, "a native client's loopback redirect")).toEqual({ status: 'pass', why: 'port 53420 instead of 53419 is accepted (a sign-in or consent follows)' });
    expect(find(lines, 'registers Cursor').status).toBe('pass');
    expect(summaryOf(run.stdout)).toMatch(/^\d+ pass, 0 warn, 0 fail, 11 not checkable$/);
  });

  it('--interactive: prints the authorization URL, takes the browser\'s redirect on its loopback port, and the token checks run', async () => {
    const redirectUri = 'http://localhost:18741/oauth/callback';
    let browsed: Promise<void> | undefined;
    const browse = async (authorizationUrl: string) => {
      // A person's browser: the consent page, Approve, and the redirect to check-hub's port.
      const jar = new CookieJar();
      const page = await followRedirects(authorizationUrl, redirectUri, jar);
      expect(page.callback).toBeUndefined();
      await page.last.response.body?.cancel();
      const approved = await followRedirects(`${page.last.url}/approve`, redirectUri, jar, { method: 'POST', headers: { origin: consent.issuer } });
      expect(approved.callback).toBeDefined();
      const landing = await fetch(approved.callback!);
      expect(landing.status).toBe(200);
      expect(await landing.text()).toContain('check-hub has the answer');
    };
    const run = await runCheckHub(['--issuer', consent.issuer, '--resource', RESOURCE, '--redirect-uri', redirectUri, '--interactive'], {
      onStderr: (stderr) => {
        const url = /\n(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)\n/.exec(stderr)?.[1];
        if (url && !browsed) browsed = browse(url);
      },
    });
    await browsed;
    expect(run.stderr).toMatch(/^check-hub: open this URL in a browser, sign in and approve; waiting up to 300 s for the redirect to http:\/\/localhost:18741\/oauth\/callback\n/);
    expect(run.code).toBe(0);
    const lines = linesOf(run.stdout);
    expect(find(lines, 'authorization code flow')).toEqual({ status: 'pass', why: 'authorized a public client (registered as mcp-remote registers, signed in by a person) and redeemed the code' });
    for (const prefix of ['access token the Worker accepts', 'access token claims', 'access token aud', 'access token scope', 'access token lifetime', 'hosted context', 'offline_access', 'a refresh gives', 'refresh token rotation']) {
      expect(find(lines, prefix).status, prefix).toBe('pass');
    }
    expect(find(lines, 'PKCE with S256').why).toBe('S256 advertised (enforcement not checkable: one sign-in in --interactive)');
    expectNoSecrets(run.stdout);
  });

  it('no server: the metadata fails with "connection refused", everything else is not checkable, exit 1', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const run = await runCheckHub(['--issuer', `http://127.0.0.1:${port}`, '--resource', RESOURCE, '--timeout', '2000']);
    expect(run.code).toBe(1);
    const lines = linesOf(run.stdout);
    expect(find(lines, 'authorization server metadata')).toEqual({
      status: 'fail',
      why: 'none found: /.well-known/oauth-authorization-server connection refused; /.well-known/openid-configuration connection refused',
    });
    expect([...lines.values()].filter(({ status }) => status === 'not checkable')).toHaveLength(requirementOrder().length - 1);
  });
});

describe('check-hub metadata discovery for an issuer with a path (RFC 8414 section 3.1)', () => {
  let server: Server;
  let origin = '';
  /** Where the stand-in serves its metadata, set per test. */
  let servedAt = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === servedAt) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: `${origin}/tenant`, authorization_endpoint: `${origin}/tenant/auth`, token_endpoint: `${origin}/tenant/token` }));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('finds RFC 8414 metadata by inserting the well-known path before the issuer path', async () => {
    servedAt = '/.well-known/oauth-authorization-server/tenant';
    const results = await checkHub(options(`${origin}/tenant`));
    expect(byRequirement(results, 'authorization server metadata')).toMatchObject({ status: 'pass', why: `RFC 8414 metadata at ${servedAt}` });
    expect(byRequirement(results, 'issuer').status).toBe('pass');
  });

  it('finds OpenID discovery appended to the issuer path', async () => {
    servedAt = '/tenant/.well-known/openid-configuration';
    const results = await checkHub(options(`${origin}/tenant`));
    expect(byRequirement(results, 'authorization server metadata').why).toMatch(/^OpenID discovery at \/tenant\/\.well-known\/openid-configuration/);
  });

  it('does not take RFC 8414 metadata appended to the issuer path, which section 3.1 does not define', async () => {
    servedAt = '/tenant/.well-known/oauth-authorization-server';
    const results = await checkHub(options(`${origin}/tenant`));
    const metadata = byRequirement(results, 'authorization server metadata');
    expect(metadata.status).toBe('fail');
    expect(metadata.why).toBe(
      'none found: /.well-known/oauth-authorization-server/tenant HTTP 404; /.well-known/openid-configuration/tenant HTTP 404; /tenant/.well-known/openid-configuration HTTP 404',
    );
  });
});

describe('check-hub command line', () => {
  it('names every requirement without ": ", the separator of the reason', () => {
    for (const requirement of requirementOrder()) expect(requirement).not.toContain(': ');
    expect(new Set(requirementOrder()).size).toBe(requirementOrder().length);
  });

  it('--help prints the usage and exits 0', async () => {
    const run = await runCheckHub(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: npm run check-hub -- --issuer <url> --resource <url> [options]');
    expect(run.stdout).toContain(`registers ${registrationCount(REDIRECT_URI)} clients`);
    expect(registrationCount(REDIRECT_URI)).toBe(REGISTERING.length + 3);
  });

  it.each([
    [[], '--issuer is required'],
    [['--issuer', 'http://127.0.0.1:1'], '--resource is required'],
    [['--issuer', 'hub.example.com', '--resource', RESOURCE], '--issuer must be an absolute http(s) URL'],
    [['--issuer', 'https://hub.example.com?x=1', '--resource', RESOURCE], '--issuer must not have a query'],
    [['--issuer', 'https://hub.example.com', '--resource', `${RESOURCE}#x`], '--resource must not have a fragment'],
    [['--issuer', 'https://hub.example.com', '--resource', `${WORKER}/api`], '--resource must be <origin>, <origin>/mcp or <origin>/mcp/vaults/<id>'],
    [['--issuer', 'https://hub.example.com', '--resource', 'http://edge.example.com/mcp'], '--resource must be https (http only on loopback)'],
    [['--issuer', 'https://hub.example.com', '--resource', RESOURCE, '--redirect-uri', 'https://client.example/cb'], '--redirect-uri must be an http loopback URL'],
    [['--issuer', 'https://hub.example.com', '--resource', RESOURCE, '--timeout', '0'], '--timeout must be a positive integer (ms)'],
    [['--issuer', 'https://hub.example.com', '--resource', RESOURCE, '--client-id', ' '], '--client-id must not be empty'],
    [['--issuer', 'https://hub.example.com', '--resource', RESOURCE, '--secret-env', 'CHECK_HUB_UNSET_VARIABLE'], '--secret-env: CHECK_HUB_UNSET_VARIABLE is not set'],
    [['--issuer', 'https://hub.example.com', '--resource', RESOURCE, '--bogus'], "Unknown option '--bogus'"],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await runCheckHub(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('Usage: npm run check-hub');
  });
});
