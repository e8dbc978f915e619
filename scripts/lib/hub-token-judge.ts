/**
 * Judges an access token the way the Worker will: `authenticate` (src/auth/jwt.ts) with a Config
 * from `loadConfig` (src/config.ts), built from what check-hub knows of the deployment (the issuer,
 * the resource, the key set the metadata names) and what the operator gives it (the shared secret
 * and the Worker's token settings). So a token passes here exactly when the Worker serves it, and a
 * refusal carries the Worker's own reason (TokenRefusal). No secret is ever part of a result.
 */
import { decodeJwt, decodeProtectedHeader, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { authenticate, type Principal, type TokenRefusal } from '../../src/auth/jwt';
import { protectedResource, type ResourcePath } from '../../src/auth/resource';
import { loadConfig } from '../../src/config';
import { describeConfigProblem } from '../../src/config-report';

/** The Worker's shared-secret variables: the Hub's session secret, under the names the Worker reads. */
export const SECRET_VARIABLES = ['SESSION_SECRET', 'HUB_JWT_SECRET', 'SESSION_SECRET_PREVIOUS'] as const;
export type SecretVariable = (typeof SECRET_VARIABLES)[number];

/** The Worker's token settings, as the operator's deployment has them. Never printed. */
export interface WorkerTokenSettings {
  /** The shared secrets given (each only where the operator gave one). */
  secrets: Partial<Record<SecretVariable, string>>;
  /** LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE as configured; undefined when not given (check-hub then finds what a token needs). */
  legacyTokensWithoutAudience?: string;
  JWT_ISSUER?: string;
  JWT_AUDIENCE?: string;
  /** HOSTED_CONTEXT_URL as configured. */
  hostedContextUrl?: string;
  /** Where these came from, for the report (a file name or an environment variable's name). */
  origin: string;
}

/** How the Worker verifies a token: RFC 9068 access tokens through the key set, or HS256 with the shared secret. */
export type VerificationPath = 'key set' | 'shared secret';

export type Judgement =
  | { kind: 'accepted'; path: VerificationPath; principal: Principal; needsLegacyAudience: boolean }
  | { kind: 'refused'; path: VerificationPath | null; reason: TokenRefusal; why: string }
  | { kind: 'unverifiable'; path: VerificationPath; why: string }
  | { kind: 'misconfigured'; why: string };

const HMAC_ALGORITHMS = new Set(['HS256', 'HS384', 'HS512']);
const KEY_SET_ALGORITHMS = new Set(['RS256', 'ES256', 'EdDSA']);

/** What each refusal means for an authorization server's token (docs/AUTH.md, "Why a token was refused"). */
const REFUSAL_MEANING: Partial<Record<TokenRefusal, string>> = {
  malformed: 'not a compact JWS the Worker can read',
  too_large: 'over 8 KiB',
  non_canonical: 'a segment is not canonical base64url',
  bad_alg: 'signed with an algorithm the Worker has no key for',
  unknown_key: 'its kid is not in the key set',
  bad_signature: 'the signature does not verify',
  jwks_unavailable: 'the key set cannot be had as the Worker fetches it (no redirects, at most 64 KiB, 3 s), so every key-set token is answered 503',
  expired: 'already expired',
  not_yet_valid: 'iat or nbf more than 30 s ahead of the clock',
  bad_claims: 'a claim is missing or of the wrong type (exp, a non-blank sub, list claims as lists of strings, client_id, iat and jti of an RFC 9068 token)',
  unsafe_claims: 'a claim carries a control character, or sub is over 256 characters',
  bad_issuer: 'iss is not the issuer',
  bad_audience: 'aud does not name this resource',
  wrong_type: 'typed as another kind of token (header typ, or a type claim other than mcp_access)',
  insufficient_scope: 'no read scope in scope or scopes',
};

export function refusalMeaning(reason: TokenRefusal): string {
  return REFUSAL_MEANING[reason] ?? 'see docs/AUTH.md, "Why a token was refused"';
}

/** The token's header and claims, unverified (for describing it, never for trusting it). */
export function decodeToken(token: string): { header: ProtectedHeaderParameters; claims: JWTPayload } | null {
  try {
    return { header: decodeProtectedHeader(token), claims: decodeJwt(token) };
  } catch {
    return null;
  }
}

/** The verification path the Worker takes for this header's algorithm, or null for one it never verifies. */
export function verificationPath(header: ProtectedHeaderParameters): VerificationPath | null {
  if (typeof header.alg !== 'string') return null;
  if (HMAC_ALGORITHMS.has(header.alg)) return 'shared secret';
  return KEY_SET_ALGORITHMS.has(header.alg) ? 'key set' : null;
}

/** The Worker resource a URL names ('' for the REST routes, '/mcp', '/mcp/vaults/<id>'), or null for any other. */
export function resourcePathOf(resource: string): ResourcePath | null {
  const url = URL.parse(resource);
  if (!url || url.search || url.hash) return null;
  const path = url.pathname === '/' ? '' : url.pathname;
  if (path === '' || path === '/mcp') return path;
  return /^\/mcp\/vaults\/[^/]+$/.test(path) ? (path as ResourcePath) : null;
}

/** A rate limiter that never refuses: verification takes no budget, but the production schema requires the binding. */
const UNLIMITED = { limit: async () => ({ success: true }) };

export interface JudgeContext {
  issuer: string;
  resource: string;
  /** The key set the Worker would have as JWT_JWKS_URL: the metadata's jwks_uri, when check-hub's rules let it be fetched. */
  jwksUri?: string;
  settings?: WorkerTokenSettings;
}

/** Runs the Worker's verification on `token` with the configuration the Worker would have. */
export async function judgeToken(token: string, context: JudgeContext, nowSeconds = Date.now() / 1000): Promise<Judgement> {
  const decoded = decodeToken(token);
  const path = decoded ? verificationPath(decoded.header) : null;
  if (path === 'shared secret' && !hasSecret(context.settings)) {
    return {
      kind: 'unverifiable',
      path,
      why: 'signed with a shared secret (HS256), and none was given: pass --secret-env or --env-file with the Hub\'s SESSION_SECRET to verify it as the Worker does',
    };
  }
  if (path === 'key set' && !context.jwksUri) {
    return { kind: 'refused', path, reason: 'bad_alg', why: 'a key-set token, and there is no usable jwks_uri for the Worker to verify it with' };
  }
  const legacy = context.settings?.legacyTokensWithoutAudience;
  const first = await verify(token, context, path, legacy ?? 'false', nowSeconds);
  if (first.kind !== 'refused' || first.reason !== 'bad_audience' || legacy !== undefined || path !== 'shared secret' || decoded?.claims.aud !== undefined) {
    return first;
  }
  // The operator did not say: an mcp_access token without aud is served only with the legacy setting.
  const withLegacy = await verify(token, context, path, 'true', nowSeconds);
  return withLegacy.kind === 'accepted' ? { ...withLegacy, needsLegacyAudience: true } : first;
}

function hasSecret(settings: WorkerTokenSettings | undefined): boolean {
  return SECRET_VARIABLES.some((name) => typeof settings?.secrets[name] === 'string' && settings.secrets[name] !== '');
}

async function verify(token: string, context: JudgeContext, path: VerificationPath | null, legacy: string, nowSeconds: number): Promise<Judgement> {
  const settings = context.settings;
  const env: Record<string, unknown> = {
    ENVIRONMENT: 'production',
    // Never contacted: verification reads no note.
    CANISTER_URL: 'https://canister.invalid',
    OAUTH_AUTHORIZATION_SERVER: context.issuer,
    PUBLIC_ORIGIN: new URL(context.resource).origin,
    LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: legacy,
    RATE_LIMITER: UNLIMITED,
    PROTOCOL_RATE_LIMITER: UNLIMITED,
    ...(context.jwksUri ? { JWT_JWKS_URL: context.jwksUri } : {}),
    ...(settings?.JWT_ISSUER ? { JWT_ISSUER: settings.JWT_ISSUER } : {}),
    ...(settings?.JWT_AUDIENCE ? { JWT_AUDIENCE: settings.JWT_AUDIENCE } : {}),
    ...settings?.secrets,
  };
  const loaded = loadConfig(env);
  if (!loaded.ok) {
    const problems = loaded.problems.map((problem) => `${problem.variable} ${describeConfigProblem(problem)}`);
    return { kind: 'misconfigured', why: `the Worker would not start with the settings given: ${problems.join('; ')}` };
  }
  const resourcePath = resourcePathOf(context.resource);
  if (resourcePath === null) throw new TypeError('the resource is not one of the Worker\'s resources');
  const resource = protectedResource(new URL(context.resource), loaded.config, resourcePath);
  const result = await authenticate(`Bearer ${token}`, loaded.config, resource, nowSeconds, { remember: false });
  if (result.ok) return { kind: 'accepted', path: path ?? 'key set', principal: result.principal, needsLegacyAudience: false };
  return { kind: 'refused', path, reason: result.reason, why: refusalMeaning(result.reason) };
}
