/**
 * JWT attack suite. Every case sends one REST request and
 * one MCP tools/call through the real Worker. A refusal must be the fixed
 * 401/403 answer, byte for byte, with the canister never contacted and the
 * token never logged; an accepted control case must read the note.
 *
 * Every token names its canister partition in effective_canister_user_id as
 * well as sub, so a token the Worker wrongly accepted would show up in the
 * canister's request log for that case's unique user.
 *
 * The asymmetric cases need a JWK set: the Worker fetches JWT_JWKS_URL with
 * the global fetch, so a stub answers exactly that https URL from inside
 * the isolate (every other fetch, canister included, goes to the network).
 * test/worker/token-typing.test.ts holds the key-set typing rules on every
 * endpoint form and era; test/worker/jwks-bounds.test.ts the set's fetch bounds.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, importJWK, type JWK } from 'jose';
import { canisterRequests, seedNotes, uniqueUser } from '../support/worker/canister';
import { MAX_IDENTITY_CHARS, TOKEN_REFUSALS } from '../../src/auth/jwt';
import {
  AUTHORIZATION_SERVER,
  ORIGIN,
  PREVIOUS_SECRET,
  REST_ROUTES,
  SESSION_SECRET,
  TOOLS,
  callWorker,
  testEnv,
} from '../support/worker/harness';

const NOTE_PATH = 'auth/probe.md';
const NOTE_HEADING = 'Probe heading';
const JWKS_URL = 'https://jwks.example/jwks/knowtation-edge-jwt-attacks';
/** https (required outside ENVIRONMENT=local) to a port nothing listens on. */
const UNREACHABLE_JWKS_URL = 'https://127.0.0.1:1/jwks';
const HUB_SECRET = 'test-hub-jwt-secret-for-knowtation-edge-0003';
const RETIRED_SECRET = 'test-retired-secret-for-knowtation-edge-0004';
const ISSUER = 'https://hub.example/issuer';
const AUDIENCE = 'knowtation-edge-test';

const UNAUTHORIZED_REST = JSON.stringify({ error: 'Unauthorized', code: 'UNAUTHORIZED' });
const SCOPE_FORBIDDEN_REST = JSON.stringify({ error: 'Forbidden', code: 'FORBIDDEN' });
const VAULT_FORBIDDEN_REST = JSON.stringify({ error: 'Access to this vault is not allowed.', code: 'FORBIDDEN' });
const rpcRefusal = (message: string, id: number | null = null) => JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message }, id });

type Outcome = 'accepted' | 'unauthorized' | 'insufficient_scope' | 'vault_forbidden' | 'unavailable';

const EXPECTED_REFUSAL: Record<Exclude<Outcome, 'accepted'>, { status: number; rest: string; mcp: string }> = {
  unauthorized: { status: 401, rest: UNAUTHORIZED_REST, mcp: rpcRefusal('Unauthorized') },
  // The key set cannot be had: the server's fault (RFC 9110 section 15.6.4), never a 401 that sends a client to sign in again.
  unavailable: {
    status: 503,
    rest: JSON.stringify({ error: 'Token verification unavailable', code: 'SERVICE_UNAVAILABLE' }),
    mcp: rpcRefusal('Token verification unavailable'),
  },
  insufficient_scope: { status: 403, rest: SCOPE_FORBIDDEN_REST, mcp: rpcRefusal('Forbidden') },
  // Refused after the message was read (the allowlist is the hosted context's): the answer carries its id, the tool call's 7.
  vault_forbidden: { status: 403, rest: VAULT_FORBIDDEN_REST, mcp: rpcRefusal('Access to this vault is not allowed.', 7) },
};

/** What one case sends: the Authorization header(s), extra query, env and vault. */
interface Attempt {
  /** Authorization header values; each is appended, so two values make a combined header. */
  authorization: string[];
  /** Secret-looking material that must never show up in a log line. */
  secretMaterial: string[];
  query?: string;
  env?: Record<string, string>;
  vault?: string;
}

interface AttackCase {
  name: string;
  outcome: Outcome;
  /** The log line's `reason`, where the case pins it. */
  reason?: string;
  attempt: (user: string) => Promise<Attempt>;
}

// ---------------------------------------------------------------- token forging

const encoder = new TextEncoder();

function base64url(input: string | Uint8Array): string {
  const bytes = typeof input === 'string' ? encoder.encode(input) : input;
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function hmac(secret: string | Uint8Array, data: string, hash = 'SHA-256'): Promise<Uint8Array> {
  const keyBytes = typeof secret === 'string' ? encoder.encode(secret) : secret;
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(data)));
}

/** A compact JWS with an arbitrary header and payload, HMAC-signed with any key bytes. */
async function forge(header: unknown, payload: unknown, secret: string | Uint8Array, hash = 'SHA-256'): Promise<string> {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  return `${signingInput}.${base64url(await hmac(secret, signingInput, hash))}`;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Claims of a valid session token for this case's partition. */
function claimsFor(user: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = nowSeconds();
  return { sub: user, effective_canister_user_id: user, role: 'viewer', iat: now, exp: now + 600, ...extra };
}

/** Removes the listed claims (to test their absence). */
function without(claims: Record<string, unknown>, ...names: string[]): Record<string, unknown> {
  const copy = { ...claims };
  for (const name of names) delete copy[name];
  return copy;
}

const hs256 = (payload: unknown, secret: string | Uint8Array = SESSION_SECRET) => forge({ alg: 'HS256', typ: 'JWT' }, payload, secret);

/**
 * An RFC 9068 JWT access token (section 2.1 header `typ`, section 2.2 claims) as the Hub's
 * authorization server issues it; `undefined` in `extra` removes a claim.
 */
function accessToken(user: string, extra: Record<string, unknown> = {}, typ = 'at+jwt'): Promise<string> {
  const now = nowSeconds();
  const claims: Record<string, unknown> = {
    iss: AUTHORIZATION_SERVER,
    sub: user,
    aud: ORIGIN,
    client_id: 'mcp-client-1',
    scope: 'vault:read',
    jti: `jti-${user}`,
    iat: now,
    exp: now + 600,
    effective_canister_user_id: user,
    ...extra,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return forge({ alg: 'HS256', typ }, claims, SESSION_SECRET);
}

const bearer = (token: string, secretMaterial: string[] = []): Attempt => ({
  authorization: [`Bearer ${token}`],
  secretMaterial: [token, ...secretMaterial],
});

/** Replaces one segment of a compact JWS. */
function withSegment(token: string, index: number, segment: string): string {
  const parts = token.split('.');
  parts[index] = segment;
  return parts.join('.');
}

function decodeSegment(token: string, index: number): Record<string, unknown> {
  const text = atob(token.split('.')[index].replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(text);
}

/** Flips the first character of a segment to another base64url character (changes the decoded bytes). */
function flipFirstChar(segment: string): string {
  return (segment[0] === 'A' ? 'B' : 'A') + segment.slice(1);
}

// ---------------------------------------------------------------- keys and the JWK set

interface KeyMaterial {
  rsaPublicJwk: JWK;
  rsaPrivateJwk: JWK;
  rsaPublicPem: string;
  otherRsaPrivateJwk: JWK;
  p256PrivateJwk: JWK;
  p384PrivateJwk: JWK;
  jwksText: string;
}

let keys: KeyMaterial;

/** Signs with a private JWK under any algorithm its key type admits; `typ` null leaves it out of the header. */
async function signAsymmetric(privateJwk: JWK, alg: string, payload: Record<string, unknown>, kid?: string, typ: string | null = 'JWT'): Promise<string> {
  const key = await importJWK({ ...privateJwk, alg: undefined }, alg);
  return new SignJWT(payload).setProtectedHeader({ alg, ...(typ === null ? {} : { typ }), ...(kid ? { kid } : {}) }).sign(key);
}

/** RFC 9068 section 2.2 claims of an access token for the origin (so it serves REST and /mcp alike). */
function accessClaimsFor(user: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return claimsFor(user, { iss: AUTHORIZATION_SERVER, aud: ORIGIN, client_id: 'mcp-client-1', jti: `jti-${user}`, scope: 'vault:read', ...extra });
}

async function exportPair(alg: string, options: Record<string, unknown> = {}) {
  const pair = await generateKeyPair(alg, { extractable: true, ...options });
  return { publicJwk: await exportJWK(pair.publicKey), privateJwk: await exportJWK(pair.privateKey), publicKey: pair.publicKey };
}

beforeAll(async () => {
  const rsa = await exportPair('RS256', { modulusLength: 2048 });
  const otherRsa = await exportPair('RS256', { modulusLength: 2048 });
  const p256 = await exportPair('ES256');
  const p384 = await exportPair('ES384');
  // Published without `alg`, so only the Worker's own allowlist can refuse RS512, PS256 or ES384.
  const jwks = {
    keys: [
      { ...rsa.publicJwk, kid: 'rsa-1', use: 'sig' },
      { ...p256.publicJwk, kid: 'ec-256', use: 'sig' },
      { ...p384.publicJwk, kid: 'ec-384', use: 'sig' },
    ],
  };
  keys = {
    rsaPublicJwk: rsa.publicJwk,
    rsaPrivateJwk: rsa.privateJwk,
    rsaPublicPem: await exportSPKI(rsa.publicKey),
    otherRsaPrivateJwk: otherRsa.privateJwk,
    p256PrivateJwk: p256.privateJwk,
    p384PrivateJwk: p384.privateJwk,
    jwksText: JSON.stringify(jwks),
  };
});

let jwksFetches = 0;
let logLines: string[] = [];

beforeEach(() => {
  jwksFetches = 0;
  logLines = [];
  const networkFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url === JWKS_URL) {
      jwksFetches += 1;
      return Promise.resolve(new Response(keys.jwksText, { headers: { 'Content-Type': 'application/json' } }));
    }
    return networkFetch(input, init);
  });
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logLines.push(String(line)));
});

afterEach(() => vi.restoreAllMocks());

// ---------------------------------------------------------------- environments

const jwksEnv = () => testEnv({ JWT_JWKS_URL: JWKS_URL });
const jwksAudienceEnv = () => testEnv({ JWT_JWKS_URL: JWKS_URL, JWT_AUDIENCE: AUDIENCE });
const jwksOnlyEnv = () => testEnv({ JWT_JWKS_URL: JWKS_URL, SESSION_SECRET: undefined });
const issuerAudienceEnv = () => testEnv({ JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });
const rotationEnv = () => testEnv({ SESSION_SECRET_PREVIOUS: PREVIOUS_SECRET });
const hubOnlyEnv = () => testEnv({ SESSION_SECRET: undefined, HUB_JWT_SECRET: HUB_SECRET });

// ---------------------------------------------------------------- header-unsafe claims

/** C0 (including TAB), DEL and C1 controls; CR, LF and NUL are the ones that break a header or a log line. */
const UNSAFE_CHARACTERS: Array<[string, string]> = [
  ['CR', '\r'],
  ['LF', '\n'],
  ['NUL', '\0'],
  ['U+0001', '\u0001'],
  ['TAB', '\t'],
  ['U+001F', '\u001f'],
  ['DEL', '\u007f'],
  ['NEL (U+0085, C1)', '\u0085'],
  ['U+009F (C1)', '\u009f'],
];

/** Where a claim value goes in a session token's claims. */
const UNSAFE_CLAIM_PLACES: Array<[string, (u: string, bad: string) => Record<string, unknown>]> = [
  ['sub', (u, bad) => ({ sub: `${u}${bad}x` })],
  ['sub, trailing', (u, bad) => ({ sub: `${u}${bad}` })],
  ['effective_canister_user_id', (u, bad) => ({ effective_canister_user_id: `${u}${bad}X-Injected: 1` })],
  ['effective_canister_user_id, trailing (trimmed today)', (u, bad) => ({ effective_canister_user_id: `${u}${bad}` })],
  ['role', (_u, bad) => ({ role: `viewer${bad}` })],
  ['allowed_vault_ids', (_u, bad) => ({ allowed_vault_ids: ['default', `other${bad}`] })],
  ['vault_ids', (_u, bad) => ({ vault_ids: [`default${bad}`] })],
  ['scope.folders', (_u, bad) => ({ scope: { folders: ['auth', `a${bad}b`], projects: [] } })],
  ['scope.projects', (_u, bad) => ({ scope: { folders: ['auth'], projects: [`p${bad}`] } })],
];

const UNSAFE_CLAIM_CASES: AttackCase[] = [
  ...UNSAFE_CLAIM_PLACES.flatMap(([place, claims]) =>
    UNSAFE_CHARACTERS.map(
      ([label, bad]): AttackCase => ({
        name: `${label} in ${place}`,
        outcome: 'unauthorized',
        reason: 'unsafe_claims',
        attempt: async (u) => bearer(await hs256(claimsFor(u, claims(u, bad)))),
      }),
    ),
  ),
  {
    name: 'lone surrogate in sub',
    outcome: 'unauthorized',
    reason: 'unsafe_claims',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: `${u}\ud800` }))),
  },
  {
    name: 'lone surrogate in effective_canister_user_id',
    outcome: 'unauthorized',
    reason: 'unsafe_claims',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { effective_canister_user_id: `${u}\udfff` }))),
  },
  {
    name: 'sub over MAX_IDENTITY_CHARS (it travels as x-actor-id)',
    outcome: 'unauthorized',
    reason: 'unsafe_claims',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: u.padEnd(MAX_IDENTITY_CHARS + 1, 's'), effective_canister_user_id: u }))),
  },
  {
    name: 'effective_canister_user_id over MAX_IDENTITY_CHARS (it travels as x-user-id)',
    outcome: 'unauthorized',
    reason: 'unsafe_claims',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { effective_canister_user_id: u.padEnd(MAX_IDENTITY_CHARS + 1, 'e') }))),
  },
  {
    name: 'sub of exactly MAX_IDENTITY_CHARS',
    outcome: 'accepted',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: u.padEnd(MAX_IDENTITY_CHARS, 's'), effective_canister_user_id: u }))),
  },
  {
    name: 'scope folder beyond Latin-1 (not a header; control)',
    outcome: 'accepted',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { scope: { folders: ['auth', '\u65e5\u672c'], projects: [] } }))),
  },
];

// ---------------------------------------------------------------- the cases

const CASES: AttackCase[] = [
  // alg: none and a missing or malformed alg
  {
    name: 'alg none with an empty signature',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url(JSON.stringify(claimsFor(u)))}.`;
      return bearer(token);
    },
  },
  {
    name: 'alg none carrying a valid HS256 signature',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: 'none', typ: 'JWT' }, claimsFor(u), SESSION_SECRET)),
  },
  {
    name: 'alg NONE (upper case)',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: 'NONE' }, claimsFor(u), SESSION_SECRET)),
  },
  {
    name: 'alg nOnE (mixed case)',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: 'nOnE' }, claimsFor(u), SESSION_SECRET)),
  },
  {
    name: 'header without alg',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ typ: 'JWT' }, claimsFor(u), SESSION_SECRET)),
  },
  {
    name: 'alg as an array',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: ['HS256'] }, claimsFor(u), SESSION_SECRET)),
  },
  {
    name: 'alg hs256 (wrong case of an allowed algorithm)',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: 'hs256' }, claimsFor(u), SESSION_SECRET)),
  },

  // wrong keys and key confusion
  {
    name: 'HS256 signed with a wrong secret',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u), 'an-attacker-chosen-secret-of-sufficient-len')),
  },
  {
    name: 'key confusion: HS256 keyed with the public key PEM (only SESSION_SECRET configured)',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u), keys.rsaPublicPem)),
  },
  {
    name: 'key confusion: HS256 keyed with the public JWK JSON (only SESSION_SECRET configured)',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u), JSON.stringify(keys.rsaPublicJwk))),
  },
  {
    name: 'key confusion: HS256 keyed with the public key PEM, JWK set configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u), keys.rsaPublicPem)), env: jwksEnv() }),
  },
  {
    name: 'key confusion: HS256 keyed with the served JWK set text, JWK set configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u), keys.jwksText)), env: jwksEnv() }),
  },
  {
    name: 'key confusion: HS256 with kid of the RSA key, keyed with its JWK, only the JWK set configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({
      ...bearer(await forge({ alg: 'HS256', kid: 'rsa-1' }, claimsFor(u), JSON.stringify(keys.rsaPublicJwk))),
      env: jwksOnlyEnv(),
    }),
  },
  {
    name: 'key confusion: HS256 keyed with the RSA modulus bytes, only the JWK set configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u), keys.rsaPublicJwk.n as string)), env: jwksOnlyEnv() }),
  },

  // algorithms outside the allowlist (keys published without alg, so the allowlist is the only guard)
  {
    name: 'RS512 signed by the published RSA key',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS512', claimsFor(u), 'rsa-1')), env: jwksEnv() }),
  },
  {
    name: 'PS256 signed by the published RSA key',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'PS256', claimsFor(u), 'rsa-1')), env: jwksEnv() }),
  },
  {
    name: 'ES384 signed by the published P-384 key',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.p384PrivateJwk, 'ES384', claimsFor(u), 'ec-384')), env: jwksEnv() }),
  },
  {
    name: 'RS512 header over an HMAC signature',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: 'RS512' }, claimsFor(u), SESSION_SECRET)),
  },
  {
    name: 'PS256 header over an HMAC signature',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: 'PS256' }, claimsFor(u), SESSION_SECRET)),
  },
  {
    name: 'ES384 header over an HMAC signature',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: 'ES384' }, claimsFor(u), SESSION_SECRET)),
  },

  // the JWK set path: RFC 9068 access tokens (typ at+jwt), or tokens for JWT_AUDIENCE (RFC 8725 section 3.11)
  {
    name: 'RS256 access token signed by the published key with its kid (control)',
    outcome: 'accepted',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', accessClaimsFor(u), 'rsa-1', 'at+jwt')), env: jwksEnv() }),
  },
  {
    name: 'ES256 access token signed by the published P-256 key (control)',
    outcome: 'accepted',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.p256PrivateJwk, 'ES256', accessClaimsFor(u), 'ec-256', 'at+jwt')), env: jwksEnv() }),
  },
  {
    name: 'key-set JWT naming JWT_AUDIENCE (control)',
    outcome: 'accepted',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u, { aud: AUDIENCE }), 'rsa-1')), env: jwksAudienceEnv() }),
  },
  {
    name: 'bare key-set JWT (sub and exp only), no JWT_AUDIENCE configured',
    outcome: 'unauthorized',
    reason: 'wrong_type',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u), 'rsa-1')), env: jwksEnv() }),
  },
  {
    name: 'OpenID ID token from the same key (aud = client id, nonce)',
    outcome: 'unauthorized',
    reason: 'wrong_type',
    attempt: async (u) => ({
      ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u, { iss: AUTHORIZATION_SERVER, aud: 'mcp-client-1', nonce: 'n-1', scope: 'openid vault:read' }), 'rsa-1')),
      env: jwksEnv(),
    }),
  },
  {
    name: 'ID token whose aud is JWT_AUDIENCE (nonce marks it)',
    outcome: 'unauthorized',
    reason: 'wrong_type',
    attempt: async (u) => ({
      ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u, { aud: AUDIENCE, nonce: 'n-1', at_hash: 'x' }), 'rsa-1')),
      env: jwksAudienceEnv(),
    }),
  },
  {
    name: 'logout token for JWT_AUDIENCE (typ logout+jwt, events)',
    outcome: 'unauthorized',
    reason: 'wrong_type',
    attempt: async (u) => ({
      ...bearer(
        await signAsymmetric(
          keys.rsaPrivateJwk,
          'RS256',
          claimsFor(u, { aud: AUDIENCE, jti: 'l-1', events: { 'http://schemas.openid.net/event/backchannel-logout': {} } }),
          'rsa-1',
          'logout+jwt',
        ),
      ),
      env: jwksAudienceEnv(),
    }),
  },
  {
    name: 'key-set JWT for JWT_AUDIENCE with another typ',
    outcome: 'unauthorized',
    reason: 'wrong_type',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u, { aud: AUDIENCE }), 'rsa-1', 'secevent+jwt')), env: jwksAudienceEnv() }),
  },
  {
    name: 'key-set JWT for another audience, JWT_AUDIENCE configured',
    outcome: 'unauthorized',
    reason: 'bad_audience',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u, { aud: 'another-api' }), 'rsa-1')), env: jwksAudienceEnv() }),
  },
  {
    name: 'key-set mcp_access without aud, legacy setting on (it covers only the shared secret)',
    outcome: 'unauthorized',
    attempt: async (u) => ({
      ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u, { type: 'mcp_access', scopes: ['vault:read'] }), 'rsa-1')),
      env: testEnv({ JWT_JWKS_URL: JWKS_URL, LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: 'true' }),
    }),
  },
  {
    name: 'RS256 with an unknown kid',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u), 'rsa-unknown')), env: jwksEnv() }),
  },
  {
    name: 'RS256 signed by an unpublished key under the published kid',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await signAsymmetric(keys.otherRsaPrivateJwk, 'RS256', claimsFor(u), 'rsa-1')), env: jwksEnv() }),
  },
  {
    name: 'RS256 with the JWK set unreachable',
    outcome: 'unavailable',
    attempt: async (u) => ({
      ...bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', accessClaimsFor(u), 'rsa-1', 'at+jwt')),
      env: testEnv({ JWT_JWKS_URL: UNREACHABLE_JWKS_URL }),
    }),
  },
  {
    name: 'RS256 with no JWK set configured',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await signAsymmetric(keys.rsaPrivateJwk, 'RS256', claimsFor(u), 'rsa-1')),
  },
  {
    name: 'HS384 with the session secret (allowlisted control)',
    outcome: 'accepted',
    attempt: async (u) => bearer(await forge({ alg: 'HS384' }, claimsFor(u), SESSION_SECRET, 'SHA-384')),
  },
  {
    name: 'HS512 with the session secret (allowlisted control)',
    outcome: 'accepted',
    attempt: async (u) => bearer(await forge({ alg: 'HS512' }, claimsFor(u), SESSION_SECRET, 'SHA-512')),
  },
  {
    name: 'HS256 header over an HMAC-SHA-512 signature',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await forge({ alg: 'HS256' }, claimsFor(u), SESSION_SECRET, 'SHA-512')),
  },

  // tampering
  {
    name: 'tampered header: alg HS256 rewritten to HS512',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(withSegment(token, 0, base64url(JSON.stringify({ alg: 'HS512', typ: 'JWT' }))));
    },
  },
  {
    name: 'tampered header: kid added',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(withSegment(token, 0, base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'x' }))));
    },
  },
  {
    name: 'tampered payload: role raised to admin',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(withSegment(token, 1, base64url(JSON.stringify({ ...decodeSegment(token, 1), role: 'admin' }))));
    },
  },
  {
    name: 'tampered payload: sub swapped',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(withSegment(token, 1, base64url(JSON.stringify({ ...decodeSegment(token, 1), sub: 'someone-else' }))));
    },
  },
  {
    name: 'tampered payload: exp extended',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(withSegment(token, 1, base64url(JSON.stringify({ ...decodeSegment(token, 1), exp: nowSeconds() + 86_400 }))));
    },
  },
  {
    name: 'tampered signature: first character changed',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(withSegment(token, 2, flipFirstChar(token.split('.')[2])));
    },
  },
  {
    name: 'tampered signature: truncated',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(withSegment(token, 2, token.split('.')[2].slice(0, 20)));
    },
  },
  {
    name: 'signature removed (two segments)',
    outcome: 'unauthorized',
    attempt: async (u) => bearer((await hs256(claimsFor(u))).split('.').slice(0, 2).join('.')),
  },
  {
    name: 'signature taken from another valid token',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      const other = await hs256(claimsFor(`${u}-other`));
      return bearer(withSegment(token, 2, other.split('.')[2]), [other]);
    },
  },
  {
    name: 'four segments',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(`${await hs256(claimsFor(u))}.AAAA`),
  },
  {
    name: 'five segments (JWE shape)',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(`${await hs256(claimsFor(u))}.AAAA.BBBB`),
  },

  // time claims (tolerance 30 s)
  {
    name: 'expired 120 s ago',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { exp: nowSeconds() - 120 }))),
  },
  {
    name: 'expired 5 s ago, inside the clock tolerance (control)',
    outcome: 'accepted',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { exp: nowSeconds() - 5 }))),
  },
  {
    name: 'nbf 120 s in the future',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { nbf: nowSeconds() + 120 }))),
  },
  {
    name: 'nbf 5 s in the future, inside the clock tolerance (control)',
    outcome: 'accepted',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { nbf: nowSeconds() + 5 }))),
  },
  {
    name: 'iat an hour in the future',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { iat: nowSeconds() + 3_600 }))),
  },
  {
    name: 'iat a year in the future',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { iat: nowSeconds() + 31_536_000, exp: nowSeconds() + 31_536_600 }))),
  },
  {
    name: 'no exp',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(without(claimsFor(u), 'exp'))),
  },
  {
    name: 'exp as a string',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { exp: String(nowSeconds() + 600) }))),
  },
  {
    name: 'exp null',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { exp: null }))),
  },

  // issuer and audience when configured
  {
    name: 'wrong iss with JWT_ISSUER configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({
      ...bearer(await hs256(claimsFor(u, { iss: 'https://evil.example/issuer', aud: AUDIENCE }))),
      env: issuerAudienceEnv(),
    }),
  },
  {
    name: 'missing iss with JWT_ISSUER configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u, { aud: AUDIENCE }))), env: issuerAudienceEnv() }),
  },
  {
    name: 'wrong aud with JWT_AUDIENCE configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u, { iss: ISSUER, aud: 'another-service' }))), env: issuerAudienceEnv() }),
  },
  {
    name: 'missing aud with JWT_AUDIENCE configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u, { iss: ISSUER }))), env: issuerAudienceEnv() }),
  },
  {
    name: 'right iss and aud (control)',
    outcome: 'accepted',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u, { iss: ISSUER, aud: AUDIENCE }))), env: issuerAudienceEnv() }),
  },
  {
    name: 'right iss and aud inside an audience list (control)',
    outcome: 'accepted',
    attempt: async (u) => ({
      ...bearer(await hs256(claimsFor(u, { iss: ISSUER, aud: ['another-service', AUDIENCE] }))),
      env: issuerAudienceEnv(),
    }),
  },

  // sub
  { name: 'missing sub', outcome: 'unauthorized', attempt: async (u) => bearer(await hs256(without(claimsFor(u), 'sub'))) },
  { name: 'empty sub', outcome: 'unauthorized', attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: '' }))) },
  { name: 'whitespace sub', outcome: 'unauthorized', attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: ' \t ' }))) },
  { name: 'numeric sub', outcome: 'unauthorized', attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: 42 }))) },
  { name: 'null sub', outcome: 'unauthorized', attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: null }))) },
  { name: 'array sub', outcome: 'unauthorized', attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: [u] }))) },
  { name: 'object sub', outcome: 'unauthorized', attempt: async (u) => bearer(await hs256(claimsFor(u, { sub: { id: u } }))) },

  // size and encoding
  {
    name: 'validly signed token over 8 KB',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u, { pad: 'p'.repeat(8 * 1024) }));
      expect(token.length).toBeGreaterThan(8 * 1024);
      return bearer(token);
    },
  },
  {
    name: 'standard base64 characters (+ and /) instead of base64url',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(token.replace(/-/g, '+').replace(/_/g, '/').replace(/^./, '+'));
    },
  },
  {
    name: 'base64 padding (=) on every segment',
    outcome: 'unauthorized',
    attempt: async (u) => bearer((await hs256(claimsFor(u))).split('.').map((s) => `${s}==`).join('.')),
  },
  {
    name: 'header segment that is not JSON',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(withSegment(token, 0, base64url('{alg:HS256')));
    },
  },
  {
    name: 'payload segment that is not JSON, correctly signed',
    outcome: 'unauthorized',
    attempt: async () => {
      const signingInput = `${base64url(JSON.stringify({ alg: 'HS256' }))}.${base64url('not json at all')}`;
      return bearer(`${signingInput}.${base64url(await hmac(SESSION_SECRET, signingInput))}`);
    },
  },
  {
    name: 'payload that is a JSON array, correctly signed',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256([claimsFor(u)])),
  },
  {
    name: 'a character outside the base64url alphabet (~) inside the token',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return bearer(`${token.slice(0, 10)}~${token.slice(11)}`);
    },
  },

  // the Authorization header and the query string
  {
    name: 'two tokens: "Bearer a, Bearer b"',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const [a, b] = [await hs256(claimsFor(u)), await hs256(claimsFor(u, { role: 'admin' }))];
      return { authorization: [`Bearer ${a}, Bearer ${b}`], secretMaterial: [a, b] };
    },
  },
  {
    name: 'two tokens: "Bearer a b"',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const [a, b] = [await hs256(claimsFor(u)), await hs256(claimsFor(u, { role: 'admin' }))];
      return { authorization: [`Bearer ${a} ${b}`], secretMaterial: [a, b] };
    },
  },
  {
    name: 'two tokens: "Bearer a,b"',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const [a, b] = [await hs256(claimsFor(u)), await hs256(claimsFor(u, { role: 'admin' }))];
      return { authorization: [`Bearer ${a},${b}`], secretMaterial: [a, b] };
    },
  },
  {
    name: 'two Authorization headers',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const [a, b] = [await hs256(claimsFor(u)), await hs256(claimsFor(u, { role: 'admin' }))];
      return { authorization: [`Bearer ${a}`, `Bearer ${b}`], secretMaterial: [a, b] };
    },
  },
  {
    name: 'token only in ?access_token=',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return { authorization: [], secretMaterial: [token], query: `access_token=${token}` };
    },
  },
  {
    name: 'token only in ?token=',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return { authorization: [], secretMaterial: [token], query: `token=${token}` };
    },
  },
  {
    name: 'token without a scheme',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return { authorization: [token], secretMaterial: [token] };
    },
  },
  {
    name: 'token under the Basic scheme',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return { authorization: [`Basic ${token}`], secretMaterial: [token] };
    },
  },
  {
    name: 'scheme and token separated by a tab (not SP)',
    outcome: 'unauthorized',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return { authorization: [`Bearer\t${token}`], secretMaterial: [token] };
    },
  },
  {
    name: '"bearer" in lower case (control)',
    outcome: 'accepted',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return { authorization: [`bearer ${token}`], secretMaterial: [token] };
    },
  },
  {
    name: '"BEARER" in upper case (control)',
    outcome: 'accepted',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return { authorization: [`BEARER ${token}`], secretMaterial: [token] };
    },
  },
  {
    name: 'several spaces after the scheme (control)',
    outcome: 'accepted',
    attempt: async (u) => {
      const token = await hs256(claimsFor(u));
      return { authorization: [`Bearer    ${token}`], secretMaterial: [token] };
    },
  },

  // secrets: rotation, retirement, fallback
  {
    name: 'previous secret while SESSION_SECRET_PREVIOUS is configured (control)',
    outcome: 'accepted',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u), PREVIOUS_SECRET)), env: rotationEnv() }),
  },
  {
    name: 'previous secret after it was retired',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u), PREVIOUS_SECRET)),
  },
  {
    name: 'a never-configured retired secret while rotation is on',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u), RETIRED_SECRET)), env: rotationEnv() }),
  },
  {
    name: 'previous secret on an expired token (no fall-through on claim errors)',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u, { exp: nowSeconds() - 120 }), PREVIOUS_SECRET)), env: rotationEnv() }),
  },
  {
    name: 'HUB_JWT_SECRET as the fallback key (control)',
    outcome: 'accepted',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u), HUB_SECRET)), env: hubOnlyEnv() }),
  },
  {
    name: 'HUB_JWT_SECRET is not tried while SESSION_SECRET is set',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u), HUB_SECRET)), env: testEnv({ HUB_JWT_SECRET: HUB_SECRET }) }),
  },
  {
    name: 'session secret while only HUB_JWT_SECRET is configured',
    outcome: 'unauthorized',
    attempt: async (u) => ({ ...bearer(await hs256(claimsFor(u), SESSION_SECRET)), env: hubOnlyEnv() }),
  },

  // token types
  {
    name: 'unknown token type',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { type: 'refresh' }))),
  },
  // OAuth access tokens are sent to REST and to /mcp: an `aud` of the public origin is a parent of both (RFC 8707).
  {
    name: 'mcp_access without scopes',
    outcome: 'insufficient_scope',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { type: 'mcp_access', aud: ORIGIN }))),
  },
  {
    name: 'mcp_access with only non-read scopes',
    outcome: 'insufficient_scope',
    attempt: async (u) =>
      bearer(await hs256(claimsFor(u, { type: 'mcp_access', aud: ORIGIN, scopes: ['openid', 'profile', 'vault:reader'] }))),
  },
  {
    name: 'mcp_access with scopes as a string',
    outcome: 'unauthorized',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { type: 'mcp_access', aud: ORIGIN, scopes: 'vault:read' }))),
  },
  {
    name: 'mcp_access with vault:read (control)',
    outcome: 'accepted',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { type: 'mcp_access', aud: ORIGIN, scopes: ['vault:read'] }))),
  },
  {
    name: 'mcp_access with the read scope in an OAuth scope string',
    outcome: 'accepted',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { type: 'mcp_access', aud: ORIGIN, scope: 'openid vault:read' }))),
  },
  {
    name: 'mcp_access without aud',
    outcome: 'unauthorized',
    reason: 'bad_audience',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { type: 'mcp_access', scopes: ['vault:read'] }))),
  },
  {
    name: 'mcp_access without aud, legacy setting on',
    outcome: 'accepted',
    attempt: async (u) => ({
      ...bearer(await hs256(claimsFor(u, { type: 'mcp_access', scopes: ['vault:read'] }))),
      env: testEnv({ LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: 'true' }),
    }),
  },
  {
    name: 'mcp_access for another resource, legacy setting on',
    outcome: 'unauthorized',
    reason: 'bad_audience',
    attempt: async (u) => ({
      ...bearer(await hs256(claimsFor(u, { type: 'mcp_access', aud: 'https://other.example/mcp', scopes: ['vault:read'] }))),
      env: testEnv({ LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: 'true' }),
    }),
  },
  {
    name: 'mcp_access whose aud only shares a prefix with the origin',
    outcome: 'unauthorized',
    reason: 'bad_audience',
    attempt: async (u) => bearer(await hs256(claimsFor(u, { type: 'mcp_access', aud: `${ORIGIN}.evil`, scopes: ['vault:read'] }))),
  },
  // RFC 9068 JWT access tokens: `typ: at+jwt`, iss of the named authorization server, scope as a string.
  {
    name: 'RFC 9068 access token (control)',
    outcome: 'accepted',
    attempt: async (u) => bearer(await accessToken(u)),
  },
  {
    name: "RFC 9068 access token with typ 'application/at+jwt'",
    outcome: 'accepted',
    attempt: async (u) => bearer(await accessToken(u, {}, 'application/at+jwt')),
  },
  {
    name: 'RFC 9068 access token without a read scope',
    outcome: 'insufficient_scope',
    attempt: async (u) => bearer(await accessToken(u, { scope: 'openid profile' })),
  },
  {
    name: 'RFC 9068 access token without aud, legacy setting on',
    outcome: 'unauthorized',
    reason: 'bad_audience',
    attempt: async (u) => ({
      ...bearer(await accessToken(u, { aud: undefined })),
      env: testEnv({ LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: 'true' }),
    }),
  },
  {
    name: 'RFC 9068 access token for another resource',
    outcome: 'unauthorized',
    reason: 'bad_audience',
    attempt: async (u) => bearer(await accessToken(u, { aud: 'https://other.example/mcp' })),
  },
  {
    name: 'RFC 9068 access token from another issuer',
    outcome: 'unauthorized',
    reason: 'bad_issuer',
    attempt: async (u) => bearer(await accessToken(u, { iss: 'https://evil.example' })),
  },
  {
    name: 'RFC 9068 access token without client_id',
    outcome: 'unauthorized',
    reason: 'bad_claims',
    attempt: async (u) => bearer(await accessToken(u, { client_id: undefined })),
  },
  {
    name: 'RFC 9068 access token without jti',
    outcome: 'unauthorized',
    reason: 'bad_claims',
    attempt: async (u) => bearer(await accessToken(u, { jti: undefined })),
  },
  {
    name: "RFC 9068 access token claiming type 'session'",
    outcome: 'unauthorized',
    reason: 'wrong_type',
    attempt: async (u) => bearer(await accessToken(u, { type: 'session' })),
  },
  {
    name: 'RFC 9068 access token with no authorization server configured',
    outcome: 'unauthorized',
    reason: 'bad_issuer',
    attempt: async (u) => ({
      ...bearer(await accessToken(u)),
      env: testEnv({ ENVIRONMENT: 'local', OAUTH_AUTHORIZATION_SERVER: undefined }),
    }),
  },
  {
    name: 'hosted scope both as a scope object and as hosted_scope',
    outcome: 'unauthorized',
    reason: 'bad_claims',
    attempt: async (u) =>
      bearer(await hs256(claimsFor(u, { scope: { folders: ['a'] }, hosted_scope: { folders: ['b'] } }))),
  },
  {
    name: 'agent_access with the wrong aud',
    outcome: 'unauthorized',
    attempt: async (u) =>
      bearer(
        await hs256(
          claimsFor(u, { type: 'agent_access', aud: 'knowtation-hub', typ: 'kt_agent_access', vault_ids: ['default'], scopes: ['vault:read'] }),
        ),
      ),
  },
  {
    name: 'agent_access without aud',
    outcome: 'unauthorized',
    attempt: async (u) =>
      bearer(await hs256(claimsFor(u, { type: 'agent_access', typ: 'kt_agent_access', vault_ids: ['default'], scopes: ['vault:read'] }))),
  },
  {
    name: 'agent_access with the wrong typ',
    outcome: 'unauthorized',
    attempt: async (u) =>
      bearer(
        await hs256(claimsFor(u, { type: 'agent_access', aud: 'knowtation-hub-rest', typ: 'JWT', vault_ids: ['default'], scopes: ['vault:read'] })),
      ),
  },
  {
    name: 'agent_access without typ',
    outcome: 'unauthorized',
    attempt: async (u) =>
      bearer(await hs256(claimsFor(u, { type: 'agent_access', aud: 'knowtation-hub-rest', vault_ids: ['default'], scopes: ['vault:read'] }))),
  },
  {
    name: 'agent_access bound to another vault',
    outcome: 'vault_forbidden',
    attempt: async (u) => ({
      ...bearer(
        await hs256(
          claimsFor(u, { type: 'agent_access', aud: 'knowtation-hub-rest', typ: 'kt_agent_access', vault_ids: ['work'], scopes: ['vault:read'] }),
        ),
      ),
      vault: 'default',
    }),
  },
  {
    name: 'agent_access with no vault_ids',
    outcome: 'vault_forbidden',
    attempt: async (u) =>
      bearer(await hs256(claimsFor(u, { type: 'agent_access', aud: 'knowtation-hub-rest', typ: 'kt_agent_access', scopes: ['vault:read'] }))),
  },
  {
    name: 'agent_access whose allowlist and vault_ids do not both admit the vault',
    outcome: 'vault_forbidden',
    attempt: async (u) =>
      bearer(
        await hs256(
          claimsFor(u, {
            type: 'agent_access',
            aud: 'knowtation-hub-rest',
            typ: 'kt_agent_access',
            vault_ids: ['default'],
            allowed_vault_ids: ['work'],
            scopes: ['vault:read'],
          }),
        ),
      ),
  },
  {
    name: 'agent_access without a read scope',
    outcome: 'insufficient_scope',
    attempt: async (u) =>
      bearer(await hs256(claimsFor(u, { type: 'agent_access', aud: 'knowtation-hub-rest', typ: 'kt_agent_access', vault_ids: ['default'] }))),
  },
  {
    name: 'agent_access with the right aud, typ and vault (control)',
    outcome: 'accepted',
    attempt: async (u) =>
      bearer(
        await hs256(
          claimsFor(u, { type: 'agent_access', aud: 'knowtation-hub-rest', typ: 'kt_agent_access', vault_ids: ['default'], scopes: ['vault:read'] }),
        ),
      ),
  },
  // header-unsafe claims: refused before any canister request, never a 502
  ...UNSAFE_CLAIM_CASES,
];

/** The log reason of representative existing cases: at least one for every reason in the vocabulary. */
const EXPECTED_REASON: Record<string, string> = {
  'token only in ?access_token=': 'missing',
  'four segments': 'malformed',
  'header segment that is not JSON': 'malformed',
  'validly signed token over 8 KB': 'too_large',
  'base64 padding (=) on every segment': 'non_canonical',
  'alg none carrying a valid HS256 signature': 'bad_alg',
  'RS256 with no JWK set configured': 'bad_alg',
  'RS256 with an unknown kid': 'unknown_key',
  'HS256 signed with a wrong secret': 'bad_signature',
  'tampered payload: role raised to admin': 'bad_signature',
  'RS256 with the JWK set unreachable': 'jwks_unavailable',
  'expired 120 s ago': 'expired',
  'previous secret on an expired token (no fall-through on claim errors)': 'expired',
  'nbf 120 s in the future': 'not_yet_valid',
  'iat an hour in the future': 'not_yet_valid',
  'no exp': 'bad_claims',
  'whitespace sub': 'bad_claims',
  'wrong iss with JWT_ISSUER configured': 'bad_issuer',
  'wrong aud with JWT_AUDIENCE configured': 'bad_audience',
  'agent_access without aud': 'bad_audience',
  'agent_access with the wrong typ': 'wrong_type',
  'unknown token type': 'wrong_type',
  'mcp_access without scopes': 'insufficient_scope',
};

// ---------------------------------------------------------------- driving one case

function requestHeaders(attempt: Attempt, extra: Record<string, string> = {}): Headers {
  const headers = new Headers(extra);
  for (const value of attempt.authorization) headers.append('Authorization', value);
  if (attempt.vault) headers.set('X-Vault-Id', attempt.vault);
  return headers;
}

async function sendRest(attempt: Attempt): Promise<Response> {
  const query = `path=${encodeURIComponent(NOTE_PATH)}${attempt.query ? `&${attempt.query}` : ''}`;
  return callWorker(`${REST_ROUTES.note_outline}?${query}`, {
    headers: Object.fromEntries(requestHeaders(attempt)),
    env: attempt.env,
  });
}

async function sendMcp(attempt: Attempt): Promise<Response> {
  const message = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: TOOLS.note_outline, arguments: { path: NOTE_PATH } } };
  return callWorker(`/mcp${attempt.query ? `?${attempt.query}` : ''}`, {
    method: 'POST',
    headers: Object.fromEntries(requestHeaders(attempt, { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' })),
    body: JSON.stringify(message),
    env: attempt.env,
  });
}

describe('identities at MAX_IDENTITY_CHARS', () => {
  it('an effective_canister_user_id of exactly MAX_IDENTITY_CHARS is the canister user, sent whole', async () => {
    const canisterUser = uniqueUser('id-edge').padEnd(MAX_IDENTITY_CHARS, 'e');
    await seedNotes(canisterUser, 'default', [{ path: NOTE_PATH, body: `# ${NOTE_HEADING}\n` }]);
    const attempt = bearer(await hs256(claimsFor(uniqueUser('id-edge-sub'), { effective_canister_user_id: canisterUser })));
    const rest = await sendRest(attempt);
    expect(rest.status).toBe(200);
    const received = await canisterRequests(canisterUser);
    expect(received).toHaveLength(1);
    expect(received[0]?.headers['x-user-id']).toBe(canisterUser);
  });
});

describe('JWT attack suite', () => {
  it('has at least 40 cases, most of them refusals', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(CASES.filter((c) => c.outcome !== 'accepted').length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES)('$name -> $outcome', async ({ name, attempt: build, outcome, reason }) => {
    const user = uniqueUser('jwt');
    await seedNotes(user, 'default', [{ path: NOTE_PATH, frontmatter: { title: 'Probe' }, body: `# ${NOTE_HEADING}\n\ntext\n` }]);
    const attempt = await build(user);

    const rest = await sendRest(attempt);
    const restText = await rest.text();
    const mcp = await sendMcp(attempt);
    const mcpText = await mcp.text();

    if (outcome === 'accepted') {
      expect(rest.status).toBe(200);
      expect(JSON.parse(restText).headings.map((h: { text: string }) => h.text)).toEqual([NOTE_HEADING]);
      expect(mcp.status).toBe(200);
      const rpc = JSON.parse(mcpText);
      expect(rpc.result.isError).toBeUndefined();
      expect(rpc.result.structuredContent.headings[0].text).toBe(NOTE_HEADING);
      const received = await canisterRequests(user);
      expect(received).toHaveLength(2);
      for (const request of received) expect(request.headers['x-user-id']).toBe(user);
    } else {
      const expected = EXPECTED_REFUSAL[outcome];
      expect(rest.status).toBe(expected.status);
      expect(restText).toBe(expected.rest);
      expect(mcp.status).toBe(expected.status);
      expect(mcpText).toBe(expected.mcp);
      if (expected.status === 401) {
        expect(rest.headers.get('WWW-Authenticate')).toMatch(/^Bearer /);
        expect(mcp.headers.get('WWW-Authenticate')).toMatch(/^Bearer /);
      }
      if (expected.status === 503) {
        // No challenge (the token may be fine), and a wait before trying again (RFC 9110 section 10.2.3).
        for (const response of [rest, mcp]) {
          expect(response.headers.get('WWW-Authenticate')).toBeNull();
          expect(Number(response.headers.get('Retry-After'))).toBeGreaterThan(0);
        }
      }
      expect(await canisterRequests(user)).toEqual([]);
    }

    // One line per request, and nothing of the presented credentials in any of them.
    expect(logLines).toHaveLength(2);
    // The refusal reason is in the log, from the fixed vocabulary, and the same on both surfaces.
    const reasons = logLines.map((line) => JSON.parse(line).reason);
    if (outcome !== 'accepted') expect(name in EXPECTED_REASON && reason !== undefined).toBe(false);
    if (outcome === 'accepted' || outcome === 'vault_forbidden') expect(reasons).toEqual([null, null]);
    else {
      expect(TOKEN_REFUSALS).toContain(reasons[0]);
      expect(reasons[1]).toBe(reasons[0]);
      if (outcome === 'insufficient_scope') expect(reasons[0]).toBe('insufficient_scope');
            const pinned = reason ?? EXPECTED_REASON[name];
      if (pinned !== undefined) expect(reasons[0], 'reason').toBe(pinned);
    }
    for (const line of logLines) {
      for (const material of attempt.secretMaterial.flatMap((m) => [m, m.split('.')[2] ?? '']).filter((m) => m.length >= 8)) {
        expect(line).not.toContain(material);
      }
      expect(line).not.toContain(user);
    }
  });

  it('pins a case for every reason in the vocabulary', () => {
    const pinned = new Set([...Object.values(EXPECTED_REASON), ...CASES.flatMap((c) => (c.reason ? [c.reason] : []))]);
    expect([...pinned].sort()).toEqual([...TOKEN_REFUSALS].sort());
    for (const name of Object.keys(EXPECTED_REASON)) expect(CASES.map((c) => c.name)).toContain(name);
  });

  it('fetches the JWK set only for asymmetric tokens', async () => {
    const user = uniqueUser('jwt-jwks');
    const hmacToken = await hs256(claimsFor(user));
    const res = await sendRest({ ...bearer(hmacToken), env: jwksEnv() });
    expect(res.status).toBe(404);
    expect(jwksFetches).toBe(0);
  });
});

// ---------------------------------------------------------------- non-canonical base64url

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Every other spelling of a canonical unpadded base64url segment that decodes to the same
 * bytes: the last character with its data bits kept and any other value in its unused bits.
 */
function otherSpellings(segment: string): string[] {
  const rest = segment.length % 4;
  if (rest === 0) return [];
  const unused = rest === 2 ? 0b1111 : 0b11;
  const last = ALPHABET.indexOf(segment[segment.length - 1]);
  expect(last & unused, 'canonical input').toBe(0);
  const spellings: string[] = [];
  for (let bits = 1; bits <= unused; bits += 1) spellings.push(segment.slice(0, -1) + ALPHABET[last | bits]);
  return spellings;
}

function decodeBytes(segment: string): string {
  const standard = segment.replace(/-/g, '+').replace(/_/g, '/');
  return atob(standard + '='.repeat((4 - (standard.length % 4)) % 4));
}

const HASH_BY_ALG: Record<string, string> = { HS256: 'SHA-256', HS384: 'SHA-384', HS512: 'SHA-512' };

/** A token signed over exactly these two segment texts. */
async function signSegments(alg: string, header: string, payload: string): Promise<string> {
  const signingInput = `${header}.${payload}`;
  return `${signingInput}.${base64url(await hmac(SESSION_SECRET, signingInput, HASH_BY_ALG[alg]))}`;
}

/** A header and a payload whose segment lengths are `headerRest` and `payloadRest` mod 4. */
function segmentsWithLengths(user: string, alg: string, headerRest: number, payloadRest: number): [string, string] {
  let header = '';
  for (let pad = 0; pad < 8; pad += 1) {
    header = base64url(JSON.stringify({ alg, typ: 'JWT', kid: 'k'.repeat(pad) }));
    if (header.length % 4 === headerRest) break;
  }
  let payload = '';
  for (let pad = 0; pad < 8; pad += 1) {
    payload = base64url(JSON.stringify(claimsFor(user, { pad: 'p'.repeat(pad) })));
    if (payload.length % 4 === payloadRest) break;
  }
  expect([header.length % 4, payload.length % 4]).toEqual([headerRest, payloadRest]);
  return [header, payload];
}

interface SpellingCase {
  name: string;
  /** The canonical token (accepted) and its re-spellings (all refused). */
  build: (user: string) => Promise<{ canonical: string; respelled: string[] }>;
}

const SPELLING_CASES: SpellingCase[] = [
  ...[
    ['HS256', 3],
    ['HS512', 2],
  ].map(([alg, rest]): SpellingCase => ({
    name: `signature segment, ${alg} (length ${rest} mod 4): every other spelling of the same bytes`,
    build: async (u) => {
      const [header, payload] = segmentsWithLengths(u, alg as string, 0, 0);
      const canonical = await signSegments(alg as string, header, payload);
      const signature = canonical.split('.')[2];
      expect(signature.length % 4).toBe(rest);
      return { canonical, respelled: otherSpellings(signature).map((s) => withSegment(canonical, 2, s)) };
    },
  })),
  ...[2, 3].map((rest): SpellingCase => ({
    name: `header segment (length ${rest} mod 4), re-signed: every other spelling of the same bytes`,
    build: async (u) => {
      const [header, payload] = segmentsWithLengths(u, 'HS256', rest, 0);
      const canonical = await signSegments('HS256', header, payload);
      const respelled = await Promise.all(otherSpellings(header).map((h) => signSegments('HS256', h, payload)));
      return { canonical, respelled };
    },
  })),
  ...[2, 3].map((rest): SpellingCase => ({
    name: `payload segment (length ${rest} mod 4), re-signed: every other spelling of the same bytes`,
    build: async (u) => {
      const [header, payload] = segmentsWithLengths(u, 'HS256', 0, rest);
      const canonical = await signSegments('HS256', header, payload);
      const respelled = await Promise.all(otherSpellings(payload).map((p) => signSegments('HS256', header, p)));
      return { canonical, respelled };
    },
  })),
  {
    name: 'impossible lengths (1 mod 4) in each segment, re-signed',
    build: async (u) => {
      const [header, payload] = segmentsWithLengths(u, 'HS384', 0, 0);
      const canonical = await signSegments('HS384', header, payload);
      const signature = canonical.split('.')[2];
      expect(signature.length % 4).toBe(0);
      return {
        canonical,
        respelled: [
          await signSegments('HS384', `${header}A`, payload),
          await signSegments('HS384', header, `${payload}A`),
          withSegment(canonical, 2, `${signature}A`),
        ],
      };
    },
  },
  {
    name: 'padding on one segment at a time',
    build: async (u) => {
      const [header, payload] = segmentsWithLengths(u, 'HS256', 2, 3);
      const canonical = await signSegments('HS256', header, payload);
      return {
        canonical,
        respelled: [
          await signSegments('HS256', `${header}==`, payload),
          await signSegments('HS256', header, `${payload}=`),
          `${canonical}=`,
        ],
      };
    },
  },
];

describe('non-canonical base64url in any segment', () => {
  it.each(SPELLING_CASES)('$name', async ({ build }) => {
    const user = uniqueUser('jwt-b64');
    await seedNotes(user, 'default', [{ path: NOTE_PATH, frontmatter: { title: 'Probe' }, body: `# ${NOTE_HEADING}\n\ntext\n` }]);
    const { canonical, respelled } = await build(user);
    expect(respelled.length).toBeGreaterThan(0);

    // The canonical spelling is accepted, so a refusal below can only be about the spelling.
    const control = await sendRest(bearer(canonical));
    expect(control.status).toBe(200);
    await control.body?.cancel();
    expect(await canisterRequests(user)).toHaveLength(1);

    for (const token of respelled) {
      expect(token).not.toBe(canonical);
      const [h, p, s] = token.split('.').map((segment) => segment.replace(/=+$/, ''));
      const [ch, cp, cs] = canonical.split('.');
      // Same bytes wherever the length is possible: only the spelling differs.
      if (h.length % 4 !== 1 && p.length % 4 !== 1 && s.length % 4 !== 1) {
        expect([decodeBytes(h), decodeBytes(p)]).toEqual([decodeBytes(ch), decodeBytes(cp)]);
        // Re-signed tokens carry a new signature; a re-spelled signature decodes to the same bytes.
        if (token.startsWith(`${ch}.${cp}.`)) expect(decodeBytes(s)).toBe(decodeBytes(cs));
      }
      logLines = [];
      const rest = await sendRest(bearer(token));
      expect(rest.status).toBe(401);
      expect(await rest.text()).toBe(UNAUTHORIZED_REST);
      const mcp = await sendMcp(bearer(token));
      expect(mcp.status).toBe(401);
      expect(await mcp.text()).toBe(EXPECTED_REFUSAL.unauthorized.mcp);
      expect(logLines.map((line) => JSON.parse(line).reason)).toEqual(['non_canonical', 'non_canonical']);
    }
    expect(await canisterRequests(user)).toHaveLength(1);
  });

  it('covers every re-spelling: 3 + 15 signature, 15 + 3 header, 15 + 3 payload', async () => {
    const counts = await Promise.all(SPELLING_CASES.slice(0, 6).map(async (c) => (await c.build(uniqueUser('count'))).respelled.length));
    expect(counts).toEqual([3, 15, 15, 3, 15, 3]);
  });
});

