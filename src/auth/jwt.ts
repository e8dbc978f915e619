/**
 * The trust boundary: a bearer JWT in, a Principal or a typed refusal out.
 * HMAC algorithms are verified only with the configured secrets and
 * asymmetric ones only with the JWK set, so `none` and key confusion cannot
 * pass. The hosted context (role, vault allowlist, canister user, scope)
 * comes from the signed claims when the token carries it (HOSTED_CONTEXT_CLAIMS);
 * a shared-secret token that carries none is marked for the Hub to be asked
 * (hosted-context.ts, in the gate), never a session store.
 * OAuth access tokens (`mcp_access`, and RFC 9068 `at+jwt` tokens) are
 * accepted only for the resource they were issued for (RFC 8707), and a
 * token from the JWK set only as an RFC 9068 access token or as a token for
 * JWT_AUDIENCE (RFC 8725 section 3.11), so no other JWT its issuer signs (an
 * ID token, a logout token) is ever read as one of ours.
 */
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { KeySetUnavailable, remoteJwks } from './jwks';
import { acceptedPrincipal, rememberAccepted, type AcceptanceWindow } from './accepted-tokens';
import * as z from 'zod/v4';
import type { Config } from '../config';
import type { ReadError } from '../errors';
import { normalizeRole, type Role } from './acl';
import { audienceAdmits, READ_SCOPE, type ProtectedResource } from './resource';
import { hasUnsafeCharacter, withoutOptionalWhitespace } from '../unsafe-text';

export const MAX_TOKEN_BYTES = 8 * 1024;
const CLOCK_TOLERANCE_SECONDS = 30;
const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'];
const JWKS_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
const READ_SCOPES = [READ_SCOPE, 'vault:write', 'vault:admin', 'admin'];
/** RFC 9068 section 4: the `typ` header of a JWT access token (media type, compared case-insensitively). */
const ACCESS_TOKEN_TYPES = ['at+jwt', 'application/at+jwt'];
/** RFC 9068 section 2.2: claims every JWT access token carries. */
const ACCESS_TOKEN_CLAIMS = ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'];
/** RFC 7519 section 5.1: the `typ` a plain JWT may carry (or none at all). */
const PLAIN_JWT_TYPES = ['jwt', 'application/jwt'];
/**
 * Claims that mark a JWT issued for something else: an OpenID Connect ID token's `nonce`,
 * `at_hash`, `c_hash` (OpenID Connect Core section 2), a logout token's or any Security Event
 * Token's `events` (OpenID Connect Back-Channel Logout section 2.4, RFC 8417 section 2.2).
 */
const OTHER_JWT_CLAIMS = ['nonce', 'at_hash', 'c_hash', 'events'];
const AGENT_AUDIENCE = 'knowtation-hub-rest';
const AGENT_TYP = 'kt_agent_access';

export interface HostedScope {
  readonly projects: readonly string[];
  readonly folders: readonly string[];
}

/**
 * Where a principal's role, canister user, vault allowlist and scope come from: the token's own
 * claims, the Hub's hosted-context endpoint, or the defaults (the token's sub and role claim, no
 * allowlist, no scope) when neither applies.
 */
export type ContextSource = 'token' | 'hub' | 'defaults';

/** Immutable: one principal may answer many requests (accepted-tokens.ts). */
export interface Principal {
  readonly sub: string;
  /** `oauth_access`: an RFC 9068 JWT access token (header `typ: at+jwt`). */
  readonly tokenType: 'session' | 'mcp_access' | 'agent_access' | 'oauth_access';
  readonly role: Role;
  /** The canister partition user: effective_canister_user_id, else sub. */
  readonly canisterUserId: string;
  /** When set, the request vault must be one of these. */
  readonly allowedVaultIds: readonly string[] | null;
  /** Non-empty hosted scope, or null when the principal is unscoped. */
  readonly scope: HostedScope | null;
  readonly context: ContextSource;
}

/**
 * The one constructor of a Principal: frozen, as a remembered principal answers later requests, and
 * its fields always in this order, so every principal (the token's, the Hub's) has one object shape.
 */
export function principalOf(fields: Principal): Principal {
  return Object.freeze({
    sub: fields.sub,
    tokenType: fields.tokenType,
    role: fields.role,
    canisterUserId: fields.canisterUserId,
    allowedVaultIds: fields.allowedVaultIds,
    scope: fields.scope,
    context: fields.context,
  });
}

/**
 * The claims that make a token carry its own hosted context, with `scope` when it is an object.
 * Any one of them present makes the token the whole statement (a missing one takes its default);
 * `role` alone does not count, as the Hub's session token carries the gateway's own role
 * ('member' or 'admin'), not the workspace's.
 */
export const HOSTED_CONTEXT_CLAIMS = ['effective_canister_user_id', 'allowed_vault_ids', 'vault_ids', 'hosted_scope'] as const;

/** The hosted-context claims a payload carries (HOSTED_CONTEXT_CLAIMS, and `scope` when it is an object). */
export function hostedContextClaims(payload: Record<string, unknown>): string[] {
  const present: string[] = HOSTED_CONTEXT_CLAIMS.filter((name) => payload[name] !== undefined);
  if (payload.scope !== null && typeof payload.scope === 'object') present.push('scope');
  return present;
}

const stringList = z.array(z.string());
const HostedScopeClaim = z.object({ projects: stringList.optional(), folders: stringList.optional() }).nullable();

const TOKEN_TYPES = ['session', 'mcp_access', 'agent_access'];

const ClaimsSchema = z.object({
  sub: z.string().refine((sub) => sub.trim() !== ''),
  type: z.enum(['session', 'mcp_access', 'agent_access']).optional(),
  role: z.unknown().optional(),
  effective_canister_user_id: z.string().optional(),
  allowed_vault_ids: stringList.optional(),
  /** OAuth scopes as a space-separated string (RFC 9068 section 2.2.3), or the Hub's hosted scope object. */
  scope: z.union([z.string(), HostedScopeClaim]).optional(),
  /** The hosted scope under a name that cannot be read as OAuth scopes. */
  hosted_scope: HostedScopeClaim.optional(),
  scopes: stringList.optional(),
  vault_ids: stringList.optional(),
  typ: z.string().optional(),
  aud: z.union([z.string(), stringList]).optional(),
});

/** `Bearer <credentials>`: scheme case-insensitive, one or more spaces (matched after the field's OWS is trimmed). */
const BEARER = /^Bearer +(\S+)$/i;
/** Three segments of the base64url alphabet; `=` is admitted here only to name it non-canonical. */
const COMPACT_JWS = /^([A-Za-z0-9_-]+)(=*)\.([A-Za-z0-9_-]+)(=*)\.([A-Za-z0-9_-]+)(=*)$/;
const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Why a token was refused, from a fixed vocabulary. Written to the log line
 * only; the response stays the one fixed 401 (or 403 for insufficient_scope).
 */
export type TokenRefusal =
  | 'missing'
  | 'malformed'
  | 'too_large'
  | 'non_canonical'
  | 'bad_alg'
  | 'unknown_key'
  | 'bad_signature'
  | 'jwks_unavailable'
  | 'expired'
  | 'not_yet_valid'
  | 'bad_claims'
  | 'unsafe_claims'
  | 'bad_issuer'
  | 'bad_audience'
  | 'wrong_type'
  | 'insufficient_scope';

export const TOKEN_REFUSALS: readonly TokenRefusal[] = [
  'missing',
  'malformed',
  'too_large',
  'non_canonical',
  'bad_alg',
  'unknown_key',
  'bad_signature',
  'jwks_unavailable',
  'expired',
  'not_yet_valid',
  'bad_claims',
  'unsafe_claims',
  'bad_issuer',
  'bad_audience',
  'wrong_type',
  'insufficient_scope',
];

type Refusable<T> = { ok: true; value: T } | { ok: false; reason: TokenRefusal };
const accept = <T>(value: T): Refusable<T> => ({ ok: true, value });
const refuse = <T = never>(reason: TokenRefusal): Refusable<T> => ({ ok: false, reason });

/**
 * True when `segment` is the one canonical unpadded base64url spelling of
 * its bytes (RFC 7515 section 2, RFC 4648 section 3.5): its length is not
 * 1 mod 4 (no byte count encodes to that), and the bits of the last
 * character that carry no data are zero. Otherwise several spellings would
 * decode to the same bytes, and lenient decoders accept them all.
 */
export function isCanonicalBase64url(segment: string): boolean {
  const rest = segment.length % 4;
  if (rest === 0) return segment.length > 0;
  if (rest === 1) return false;
  const last = BASE64URL_ALPHABET.indexOf(segment[segment.length - 1]);
  if (last === -1) return false;
  // 2 chars carry 1 byte (4 spare bits); 3 chars carry 2 bytes (2 spare bits).
  const spareBits = rest === 2 ? 0b1111 : 0b11;
  return (last & spareBits) === 0;
}

/** The compact JWS from the Authorization header, or why there is none to verify. */
export function bearerToken(authorization: string | null): Refusable<string> {
  if (authorization == null) return refuse('missing');
  if (authorization.length > MAX_TOKEN_BYTES + 16) return refuse('too_large');
  const match = BEARER.exec(withoutOptionalWhitespace(authorization));
  if (!match) return refuse('malformed');
  const token = match[1];
  if (token.length > MAX_TOKEN_BYTES) return refuse('too_large');
  const jws = COMPACT_JWS.exec(token);
  if (!jws) return refuse('malformed');
  const [, header, headerPad, payload, payloadPad, signature, signaturePad] = jws;
  if (headerPad || payloadPad || signaturePad) return refuse('non_canonical');
  if (![header, payload, signature].every(isCanonicalBase64url)) return refuse('non_canonical');
  return accept(token);
}

/** Maps a jose refusal to its reason; a key set that could not be had is the server's fault; anything else unexpected is a malformed token. */
function joseRefusal(error: unknown): TokenRefusal {
  if (error instanceof KeySetUnavailable) return 'jwks_unavailable';
  if (error instanceof joseErrors.JWTExpired) return 'expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'bad_audience';
    if (error.reason === 'missing') return error.claim === 'iss' ? 'bad_issuer' : 'bad_claims';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not_yet_valid';
    if (error.claim === 'iss') return 'bad_issuer';
    return 'bad_claims';
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported) return 'bad_alg';
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) return 'unknown_key';
  return 'malformed';
}

interface VerifiedToken {
  payload: JWTPayload;
  /** The protected header's `typ`, as sent. */
  typ: unknown;
  /** The protected header says `typ: at+jwt`: an RFC 9068 access token. */
  isAccessToken: boolean;
  /** Verified with a key of the JWK set (JWT_JWKS_URL), not with the shared secret. */
  viaKeySet: boolean;
}

async function verifySignature(token: string, config: Config, nowSeconds: number): Promise<Refusable<VerifiedToken>> {
  let alg: unknown;
  let typ: unknown;
  try {
    ({ alg, typ } = decodeProtectedHeader(token));
  } catch {
    return refuse('malformed');
  }
  const isAccessToken = typeof typ === 'string' && ACCESS_TOKEN_TYPES.includes(typ.toLowerCase());
  // RFC 9068 section 4: an access token's issuer is exactly the authorization server this resource names.
  if (isAccessToken && !config.authorizationServer) return refuse('bad_issuer');
  const options = {
    // One clock for every time rule: jose's exp and nbf, the iat rule below and the accepted-token memo.
    currentDate: new Date(nowSeconds * 1000),
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: isAccessToken ? ACCESS_TOKEN_CLAIMS : ['exp', 'sub'],
    issuer: isAccessToken ? config.authorizationServer : config.issuer,
  };
  const verified = (payload: JWTPayload, viaKeySet: boolean): Refusable<VerifiedToken> =>
    accept({ payload, typ, isAccessToken, viaKeySet });
  if (typeof alg === 'string' && HMAC_ALGORITHMS.includes(alg) && config.hmacSecrets.length > 0) {
    let reason: TokenRefusal = 'bad_signature';
    for (const secret of config.hmacSecrets) {
      try {
        const key = new TextEncoder().encode(secret);
        return verified((await jwtVerify(token, key, { ...options, algorithms: HMAC_ALGORITHMS })).payload, false);
      } catch (error) {
        reason = joseRefusal(error);
        // Only a bad signature may fall through to the previous secret.
        if (!(error instanceof joseErrors.JWSSignatureVerificationFailed)) return refuse(reason);
      }
    }
    return refuse(reason);
  }
  if (typeof alg === 'string' && JWKS_ALGORITHMS.includes(alg) && config.jwksUrl) {
    try {
      return verified((await jwtVerify(token, remoteJwks(config.jwksUrl), { ...options, algorithms: JWKS_ALGORITHMS })).payload, true);
    } catch (error) {
      return refuse(joseRefusal(error));
    }
  }
  return refuse('bad_alg');
}

/** Longest identity (sub, effective canister user) forwarded in a canister request header. */
export const MAX_IDENTITY_CHARS = 256;

/**
 * Every claim the Worker forwards to the canister or could record (sub,
 * effective canister user, vault ids, role, scope folders and projects) is
 * free of unsafe characters (hasUnsafeCharacter: controls and lone surrogates),
 * and the two identities it sends as headers fit MAX_IDENTITY_CHARS (a longer one
 * would overflow the canister's header limit and read as an outage).
 * Checked on the raw claim, before any trimming.
 */
function claimsAreSafe(claims: z.infer<typeof ClaimsSchema>): boolean {
  if (claims.sub.length > MAX_IDENTITY_CHARS || (claims.effective_canister_user_id ?? '').length > MAX_IDENTITY_CHARS) return false;
  const values = [
    claims.sub,
    claims.effective_canister_user_id ?? '',
    typeof claims.role === 'string' ? claims.role : '',
    ...(claims.allowed_vault_ids ?? []),
    ...(claims.vault_ids ?? []),
    ...hostedScopeEntries(claims.scope),
    ...hostedScopeEntries(claims.hosted_scope),
  ];
  return !values.some(hasUnsafeCharacter);
}

function hostedScopeEntries(scope: z.infer<typeof ClaimsSchema>['scope']): string[] {
  return scope !== null && typeof scope === 'object' ? [...(scope.folders ?? []), ...(scope.projects ?? [])] : [];
}

function audienceList(aud: string | string[] | undefined): string[] {
  return aud === undefined ? [] : Array.isArray(aud) ? aud : [aud];
}

/**
 * A verified principal, or the refusal as the surfaces answer it and the reason the log line
 * records. `token` is the compact JWS; `askHub` is true when the principal carries the defaults
 * only because its shared-secret token carries no hosted context and HOSTED_CONTEXT_URL is set:
 * then the gate must replace them with the Hub's answer before anything is read.
 */
export type Authentication =
  | { ok: true; principal: Principal; token: string; askHub: boolean }
  | { ok: false; error: ReadError; reason: TokenRefusal };

/**
 * Authenticates one credential (an Authorization header value) for one protected resource at
 * `nowSeconds` (epoch seconds, floored here: jose reads whole seconds). Unauthorized (401) for
 * anything that is not a valid token for this resource; InsufficientScope (403) for a valid OAuth
 * or agent token that lacks a read scope; AuthUnavailable (503) when the JWK set cannot be had,
 * which is the server's fault and must not send a client to sign in again. A token verified with
 * the HMAC secrets is remembered (accepted-tokens.ts) unless `remember` is false; one verified with
 * the JWK set never is, as the set can change under it.
 */
export async function authenticate(
  authorization: string | null,
  config: Config,
  resource: ProtectedResource,
  nowSeconds: number,
  { remember = true }: { remember?: boolean } = {},
): Promise<Authentication> {
  const token = bearerToken(authorization);
  if (!token.ok) return refusedAs(token.reason, authorization);
  const now = Math.floor(nowSeconds);
  const remembered = remember ? acceptedPrincipal<Principal>(config, resource.id, token.value, now) : null;
  // Only shared-secret tokens are remembered, so a remembered default context is one the Hub may be asked for.
  if (remembered) return { ok: true, principal: remembered, token: token.value, askHub: asksHub(remembered, false, config) };
  const accepted = await principalFrom(token.value, config, resource, now);
  if (!accepted.ok) return refusedAs(accepted.reason, authorization);
  const { principal, window, viaKeySet } = accepted.value;
  if (remember && !viaKeySet) rememberAccepted(config, resource.id, token.value, principal, window, now);
  return { ok: true, principal, token: token.value, askHub: asksHub(principal, viaKeySet, config) };
}

/** The Hub is asked only for a shared-secret token (the Hub verifies it with the same secret) without hosted context claims. */
function asksHub(principal: Principal, viaKeySet: boolean, config: Config): boolean {
  return principal.context === 'defaults' && !viaKeySet && config.hostedContextUrl !== undefined;
}

/** A refusal as the surfaces answer it: 403 for a missing read scope, 503 for an unavailable key set, else 401. */
function refusedAs(reason: TokenRefusal, authorization: string | null): Authentication {
  if (reason === 'insufficient_scope') return { ok: false, error: { kind: 'InsufficientScope' }, reason };
  if (reason === 'jwks_unavailable') return { ok: false, error: { kind: 'AuthUnavailable' }, reason };
  return { ok: false, error: { kind: 'Unauthorized', invalidToken: authorization != null }, reason };
}

type Claims = z.infer<typeof ClaimsSchema>;

/** The token's kind: its `type` claim, or `oauth_access` for an RFC 9068 access token (which may say `mcp_access`). */
function tokenTypeOf(claims: Claims, isAccessToken: boolean): Refusable<Principal['tokenType']> {
  if (!isAccessToken) return accept(claims.type ?? 'session');
  return claims.type === undefined || claims.type === 'mcp_access' ? accept('oauth_access') : refuse('wrong_type');
}

/**
 * Who the token is for. Agent credentials name the Hub REST audience; OAuth access tokens must
 * name this resource or a parent of it (RFC 8707, MCP authorization: tokens issued for another
 * resource are refused), except that an `mcp_access` token with no `aud` at all passes when the
 * operator turned on LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE; session tokens name JWT_AUDIENCE when set.
 */
function audienceRefusal(claims: Claims, tokenType: Principal['tokenType'], config: Config, resource: ProtectedResource): TokenRefusal | null {
  const audiences = audienceList(claims.aud);
  switch (tokenType) {
    case 'agent_access':
      if (!audiences.includes(AGENT_AUDIENCE)) return 'bad_audience';
      return claims.typ === AGENT_TYP ? null : 'wrong_type';
    case 'mcp_access':
      if (audiences.length === 0 && config.legacyTokensWithoutAudience) return null;
      return audienceAdmits(audiences, resource) ? null : 'bad_audience';
    case 'oauth_access':
      return audienceAdmits(audiences, resource) ? null : 'bad_audience';
    case 'session':
      return config.audience && !audiences.includes(config.audience) ? 'bad_audience' : null;
  }
}

/** OAuth scopes: the `scopes` array and a space-separated `scope` string (RFC 6749 section 3.3). */
function oauthScopes(claims: Claims): string[] {
  const fromString = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
  return [...(claims.scopes ?? []), ...fromString];
}

/**
 * The hosted folder and project scope: `hosted_scope`, or a `scope` claim that is an object (the
 * Hub's session and `mcp_access` tokens). A string `scope` is OAuth's and never widens it; both
 * objects at once are ambiguous and refused.
 */
function hostedScope(claims: Claims): Refusable<HostedScope | null> {
  const legacy = claims.scope !== null && typeof claims.scope === 'object' ? claims.scope : null;
  if (legacy && claims.hosted_scope !== undefined) return refuse('bad_claims');
  const scope = claims.hosted_scope ?? legacy;
  const projects = scope?.projects?.filter((p) => p !== '') ?? [];
  const folders = scope?.folders?.map((f) => f.replace(/^\/+|\/+$/g, '')).filter((f) => f !== '') ?? [];
  return accept(projects.length > 0 || folders.length > 0 ? { projects, folders } : null);
}

/**
 * RFC 8725 section 3.11 (explicit typing): a key-set token that is not an RFC 9068 access token is
 * read only when the Worker serves an audience for such tokens (JWT_AUDIENCE) and the token names
 * it, is typed as a plain JWT or not at all, and carries no claim that marks another kind of JWT.
 */
function keySetTokenRefusal(verified: VerifiedToken, config: Config): TokenRefusal | null {
  if (!verified.viaKeySet || verified.isAccessToken) return null;
  const { typ, payload } = verified;
  if (!config.audience) return 'wrong_type';
  if (typ !== undefined && !(typeof typ === 'string' && PLAIN_JWT_TYPES.includes(typ.toLowerCase()))) return 'wrong_type';
  if (OTHER_JWT_CLAIMS.some((claim) => Object.hasOwn(payload, claim))) return 'wrong_type';
  const aud = payload.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  return audiences.includes(config.audience) ? null : 'bad_audience';
}

/**
 * The window in which jose and the iat rule accept a verified token: exp (required) with the
 * tolerance after it, nbf and iat (when present) with the tolerance before them.
 */
function acceptanceWindow(payload: JWTPayload): AcceptanceWindow {
  const starts = [payload.nbf, payload.iat].filter((value): value is number => typeof value === 'number');
  return { from: Math.max(-Infinity, ...starts) - CLOCK_TOLERANCE_SECONDS, until: (payload.exp as number) + CLOCK_TOLERANCE_SECONDS };
}

/** The principal of a compact JWS (bearerToken's), when every rule accepts it; its window, and the key that verified it. */
async function principalFrom(
  token: string,
  config: Config,
  resource: ProtectedResource,
  nowSeconds: number,
): Promise<Refusable<{ principal: Principal; window: AcceptanceWindow; viaKeySet: boolean }>> {
  const verified = await verifySignature(token, config, nowSeconds);
  if (!verified.ok) return verified;
  const typing = keySetTokenRefusal(verified.value, config);
  if (typing) return refuse(typing);
  const { payload, isAccessToken } = verified.value;
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) {
    return refuse('not_yet_valid');
  }
  if (payload.type !== undefined && !TOKEN_TYPES.includes(payload.type as string)) return refuse('wrong_type');
  const parsed = ClaimsSchema.safeParse(payload);
  if (!parsed.success) return refuse('bad_claims');
  const claims = parsed.data;
  if (!claimsAreSafe(claims)) return refuse('unsafe_claims');
  const tokenType = tokenTypeOf(claims, isAccessToken);
  if (!tokenType.ok) return tokenType;
  const audience = audienceRefusal(claims, tokenType.value, config, resource);
  if (audience) return refuse(audience);
  if (tokenType.value !== 'session' && !oauthScopes(claims).some((scope) => READ_SCOPES.includes(scope))) {
    return refuse('insufficient_scope');
  }
  const scope = hostedScope(claims);
  if (!scope.ok) return scope;

  const canisterUser = claims.effective_canister_user_id?.trim();
  let allowedVaultIds = claims.allowed_vault_ids ?? null;
  if (tokenType.value === 'agent_access') {
    // An agent credential is bound to its vault_ids; with an allowlist as well, both must admit the vault.
    const bound = claims.vault_ids ?? [];
    allowedVaultIds = allowedVaultIds ? allowedVaultIds.filter((v) => bound.includes(v)) : bound;
  }

  const principal = principalOf({
    sub: claims.sub,
    tokenType: tokenType.value,
    role: normalizeRole(claims.role),
    canisterUserId: canisterUser ? canisterUser : claims.sub,
    allowedVaultIds: allowedVaultIds && Object.freeze([...allowedVaultIds]),
    scope: scope.value && Object.freeze({ projects: Object.freeze([...scope.value.projects]), folders: Object.freeze([...scope.value.folders]) }),
    context: hostedContextClaims(claims).length > 0 ? 'token' : 'defaults',
  });
  return accept({ principal, window: acceptanceWindow(payload), viaKeySet: verified.value.viaKeySet });
}
