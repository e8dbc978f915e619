// `npm run check-hub` (scripts/check-hub.ts, scripts/lib/hub-check.ts) against real servers over
// loopback HTTP: the local authorization server, which must pass every requirement, and a
// deliberately non-conformant one, whose every gap must be named; plus the not-checkable cases
// (a consent page, no metadata) and the command line. The command runs as a child process, so
// its exit code and exact output are what an operator sees.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAuthServer, type AuthServer } from '../../demo/auth-server.mjs';
import { checkHub, formatReport, requirementOrder, type HubCheckOptions, type RequirementResult } from '../../scripts/lib/hub-check';
import { CONNECTOR_CLIENTS } from '../../scripts/lib/connector-clients';
import { NONCONFORMANT_CLIENT_ID, startNonconformantAuthServer, type NonconformantAuthServer } from '../support/node/nonconformant-auth-server';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORKER = 'http://127.0.0.1:8787';
const RESOURCE = `${WORKER}/mcp`;
const REDIRECT_URI = 'http://127.0.0.1:33418/check-hub/callback';
const LINE = /^(pass|fail|not checkable)\s+(.+?): (.+)$/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command as npm would, without blocking this process (the servers under test live here). */
function runCheckHub(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/check-hub.ts'), ...args], { cwd: repoRoot, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
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

describe('check-hub against the local authorization server (automatic approval for loopback clients)', () => {
  let as: AuthServer;

  beforeAll(async () => {
    as = await startAuthServer({ resourceOrigin: WORKER, autoApprove: true });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('passes every requirement, one line each, and exits 0', async () => {
    const run = await runCheckHub(['--issuer', as.issuer, '--resource', RESOURCE]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`check-hub: ${as.issuer} as the authorization server for ${RESOURCE}`);
    const requirements = linesOf(run.stdout);
    expect([...requirements.keys()]).toEqual(requirementOrder());
    for (const [requirement, { status }] of requirements) expect(status, requirement).toBe('pass');
    expect(lines.at(-1)).toBe(`${requirementOrder().length} pass, 0 fail, 0 not checkable`);
    expect(find(requirements, 'access token aud').why).toBe(`aud is ${RESOURCE}`);
    expect(find(requirements, 'refuses a foreign resource').why).toBe('https://check-hub.invalid/mcp refused at the authorization endpoint');
    expect(find(requirements, 'iss on the authorization response').why).toBe('advertised, and both redirects to the client carry iss');
    expectNoSecrets(run.stdout);
  });

  it('prints none of the codes, tokens and client ids it handled', async () => {
    const handled = new Set<string>();
    const realFetch = globalThis.fetch;
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const response = await realFetch(input, init);
      const location = response.headers.get('location');
      const code = location ? new URL(location, as.issuer).searchParams.get('code') : null;
      if (code) handled.add(code);
      const body = await response.clone().json().catch(() => ({})) as Record<string, unknown>;
      for (const name of ['access_token', 'refresh_token', 'id_token', 'client_id', 'client_secret']) {
        if (typeof body[name] === 'string') handled.add(body[name] as string);
      }
      return response;
    });
    let report: string;
    try {
      const checkOptions = options(as.issuer);
      report = formatReport(checkOptions, await checkHub(checkOptions));
    } finally {
      spy.mockRestore();
    }
    // Codes from three flows, two access tokens and refresh tokens, a dozen client ids.
    expect(handled.size).toBeGreaterThan(15);
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

describe('check-hub against a non-conformant authorization server', () => {
  let server: NonconformantAuthServer;

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
      ['public clients', 'fail', /lacks none \(lists client_secret_post\)/],
      ['refuses unsafe redirect URIs', 'not checkable', /^no registration endpoint$/],
      ['authorization code flow', 'pass', /pre-registered public client/],
      ['iss on the authorization response', 'fail', /^authorization_response_iss_parameter_supported is not true and 2 of 2 redirects to the client carry no iss/],
      ['refuses a foreign resource', 'fail', /a token was issued for https:\/\/check-hub\.invalid\/mcp/],
      ['JWT access token', 'fail', /^typ is JWT, not at\+jwt, signed HS256 \(the Worker takes RS256, ES256 or EdDSA\), no kid and no usable JWK set to verify it with$/],
      ['access token claims', 'fail', /missing or mistyped: iss, aud, client_id, jti$/],
      ['access token aud', 'fail', /^no aud: the token is not bound to http:\/\/127\.0\.0\.1:8787\/mcp$/],
      ['access token scope', 'pass', /^scope vault:read$/],
      ['access token lifetime', 'fail', /^86400 s/],
      ['refresh tokens', 'fail', /grant_types_supported lacks refresh_token and no refresh token was issued/],
      ['refresh token rotation', 'not checkable', /no refresh token/],
      ['JWK set', 'fail', /^no jwks_uri/],
    ];
    for (const [prefix, status, why] of expectations) {
      const line = find(lines, prefix);
      expect(line.status, prefix).toBe(status);
      expect(line.why, prefix).toMatch(why);
    }
    for (const client of CONNECTOR_CLIENTS) {
      expect(lines.get(`registers ${client.name} (RFC 7591 section 3)`)).toEqual({ status: 'not checkable', why: 'no registration endpoint' });
    }
    // 4 pass (metadata, endpoints, flow, scope); rotation, unsafe redirects and every connector not checkable.
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`4 pass, 12 fail, ${CONNECTOR_CLIENTS.length + 2} not checkable`);
    expectNoSecrets(run.stdout);
  });

  it('says what to pass when there is neither registration nor a client id', async () => {
    const results = await checkHub(options(server.issuer));
    expect(byRequirement(results, 'authorization code flow')).toMatchObject({ status: 'not checkable', why: expect.stringContaining('--client-id') });
    for (const prefix of ['JWT access token', 'access token claims', 'access token aud', 'refuses a foreign resource']) {
      expect(byRequirement(results, prefix).status, prefix).toBe('not checkable');
    }
    expect(byRequirement(results, 'refresh tokens')).toMatchObject({ status: 'fail', why: 'grant_types_supported lacks refresh_token' });
  });
});

describe('check-hub on the audience of the issued token (RFC 9068 section 3)', () => {
  it.each([
    ['the resource itself', RESOURCE, 'pass', `aud is ${RESOURCE}`],
    ['a list holding only the resource', [RESOURCE], 'pass', `aud is ${RESOURCE}`],
    ['another resource', `${WORKER}/other`, 'fail', `aud is "${WORKER}/other", not ${RESOURCE}`],
    ['the resource and another audience', [RESOURCE, 'knowtation-hub-rest'], 'fail', 'aud also names 1 other audience(s)'],
    ['a parent of the resource', WORKER, 'fail', `aud is "${WORKER}", not ${RESOURCE}`],
  ])('aud as %s: %s', async (_what, aud, status, why) => {
    const server = await startNonconformantAuthServer(REDIRECT_URI, { aud });
    try {
      const results = await checkHub(options(server.issuer, { clientId: NONCONFORMANT_CLIENT_ID }));
      expect(byRequirement(results, 'access token aud')).toMatchObject({ status, why });
    } finally {
      await server.close();
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
    ['an http set on a host that is not loopback', { keys: [ecKey('a')] }, 'http://keys.example/jwks', 'fail', 'jwks_uri is not https (http only on a loopback host)'],
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
    jwks = { body: sized(64 * 1024) };
    expect(byRequirement(await checkHub(options(origin)), 'JWK set').status).toBe('pass');
    jwks = { body: sized(64 * 1024 + 1) };
    expect(byRequirement(await checkHub(options(origin)), 'JWK set')).toMatchObject({
      status: 'fail',
      why: '/jwks is 65537 bytes: the Worker refuses a set over 65536 bytes unread',
    });
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
    expect(flow.why).toMatch(new RegExp(`^the server shows a page at 127\\.0\\.0\\.1:${consent.port}/interaction/[A-Za-z0-9_-]+ \\(sign-in or consent\\)`));
    for (const prefix of ['JWT access token', 'access token claims', 'access token aud', 'access token scope', 'access token lifetime', 'refresh tokens', 'refresh token rotation']) {
      expect(find(lines, prefix).status, prefix).toBe('not checkable');
    }
    // Refused before any page, so still checked; and that redirect carries iss.
    expect(find(lines, 'refuses a foreign resource').status).toBe('pass');
    expect(find(lines, 'iss on the authorization response')).toEqual({ status: 'pass', why: 'advertised, and the redirect to the client carries iss' });
    expect(find(lines, 'PKCE with S256').why).toMatch(/^S256 advertised \(enforcement not checkable: the server shows a page/);
    expect(find(lines, 'registers Cursor').status).toBe('pass');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ pass, 0 fail, 8 not checkable$/);
  });

  it('no server: the metadata fails, everything else is not checkable, exit 1', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const run = await runCheckHub(['--issuer', `http://127.0.0.1:${port}`, '--resource', RESOURCE, '--timeout', '2000']);
    expect(run.code).toBe(1);
    const lines = linesOf(run.stdout);
    expect(find(lines, 'authorization server metadata')).toEqual({
      status: 'fail',
      why: 'none found: /.well-known/oauth-authorization-server ECONNREFUSED; /.well-known/openid-configuration ECONNREFUSED',
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
    expect(run.stdout).toContain(`registers ${CONNECTOR_CLIENTS.length + 4} clients`);
  });

  it.each([
    [[], '--issuer is required'],
    [['--issuer', 'http://127.0.0.1:1'], '--resource is required'],
    [['--issuer', 'hub.example.com', '--resource', RESOURCE], '--issuer must be an absolute http(s) URL'],
    [['--issuer', 'https://hub.example.com?x=1', '--resource', RESOURCE], '--issuer must not have a query'],
    [['--issuer', 'https://hub.example.com', '--resource', `${RESOURCE}#x`], '--resource must not have a fragment'],
    [['--issuer', 'https://hub.example.com', '--resource', RESOURCE, '--timeout', '0'], '--timeout must be a positive integer (ms)'],
    [['--issuer', 'https://hub.example.com', '--resource', RESOURCE, '--client-id', ' '], '--client-id must not be empty'],
    [['--issuer', 'https://hub.example.com', '--resource', RESOURCE, '--bogus'], "Unknown option '--bogus'"],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await runCheckHub(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('Usage: npm run check-hub');
  });
});
