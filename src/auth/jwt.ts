/**
 * The trust boundary: a bearer JWT in, a Principal or a typed refusal out.
 * HMAC algorithms are verified only with the configured secrets and
 * asymmetric ones only with the JWK set, so `none` and key confusion cannot
 * pass. All hosted context (role, vault allowlist, canister user, scope)
 * comes from the signed claims: no session store and no bridge call.
 */
import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import type { Config } from '../config';
import { fail, ok, type Result } from '../errors';
import { normalizeRole, type Role } from './acl';

export const MAX_TOKEN_BYTES = 8 * 1024;
const CLOCK_TOLERANCE_SECONDS = 30;
const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'];
const JWKS_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
const READ_SCOPES = ['vault:read', 'vault:write', 'vault:admin', 'admin'];
const AGENT_AUDIENCE = 'knowtation-hub-rest';
const AGENT_TYP = 'kt_agent_access';

export interface HostedScope {
  projects: string[];
  folders: string[];
}

export interface Principal {
  sub: string;
  tokenType: 'session' | 'mcp_access' | 'agent_access';
  role: Role;
  /** The canister partition user: effective_canister_user_id, else sub. */
  canisterUserId: string;
  /** When set, the request vault must be one of these. */
  allowedVaultIds: string[] | null;
  /** Non-empty hosted scope, or null when the principal is unscoped. */
  scope: HostedScope | null;
  /** The verified bearer token, forwarded to the canister as the caller's credential. */
  token: string;
}

const stringList = z.array(z.string());

const ClaimsSchema = z.object({
  sub: z.string().refine((sub) => sub.trim() !== ''),
  type: z.enum(['session', 'mcp_access', 'agent_access']).optional(),
  role: z.unknown().optional(),
  effective_canister_user_id: z.string().optional(),
  allowed_vault_ids: stringList.optional(),
  scope: z.object({ projects: stringList.optional(), folders: stringList.optional() }).nullable().optional(),
  scopes: stringList.optional(),
  vault_ids: stringList.optional(),
  typ: z.string().optional(),
  aud: z.union([z.string(), stringList]).optional(),
});

/** `Bearer <token>`: scheme case-insensitive, one or more spaces, exactly one compact JWS. */
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

const jwksCache = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function remoteJwks(url: string): ReturnType<typeof createRemoteJWKSet> {
  let jwks = jwksCache.get(url);
  if (!jwks) {
    jwks = createRemoteJWKSet(new URL(url), { timeoutDuration: 3_000, cooldownDuration: 30_000 });
    jwksCache.set(url, jwks);
  }
  return jwks;
}

export function bearerToken(authorization: string | null): string | null {
  if (authorization == null || authorization.length > MAX_TOKEN_BYTES + 16) return null;
  const match = BEARER.exec(authorization);
  if (!match || match[1].length > MAX_TOKEN_BYTES) return null;
  return match[1];
}

async function verifySignature(token: string, config: Config): Promise<JWTPayload | null> {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    return null;
  }
  const options = { clockTolerance: CLOCK_TOLERANCE_SECONDS, requiredClaims: ['exp', 'sub'], issuer: config.issuer };
  if (typeof alg === 'string' && HMAC_ALGORITHMS.includes(alg)) {
    for (const secret of config.hmacSecrets) {
      try {
        const key = new TextEncoder().encode(secret);
        return (await jwtVerify(token, key, { ...options, algorithms: HMAC_ALGORITHMS })).payload;
      } catch (error) {
        // Only a bad signature may fall through to the previous secret.
        if (!(error instanceof joseErrors.JWSSignatureVerificationFailed)) return null;
      }
    }
    return null;
  }
  if (typeof alg === 'string' && JWKS_ALGORITHMS.includes(alg) && config.jwksUrl) {
    try {
      return (await jwtVerify(token, remoteJwks(config.jwksUrl), { ...options, algorithms: JWKS_ALGORITHMS })).payload;
    } catch {
      return null;
    }
  }
  return null;
}

function audienceList(aud: string | string[] | undefined): string[] {
  return aud === undefined ? [] : Array.isArray(aud) ? aud : [aud];
}

/**
 * Authenticates the request. 401 (Unauthorized) for anything that is not a
 * valid token for this resource; 403 (InsufficientScope) for a valid OAuth
 * or agent token that lacks a read scope.
 */
export async function authenticate(request: Request, config: Config, nowSeconds: number): Promise<Result<Principal>> {
  const header = request.headers.get('authorization');
  const token = bearerToken(header);
  if (!token) return fail({ kind: 'Unauthorized', invalidToken: header != null });
  const payload = await verifySignature(token, config);
  if (!payload) return fail({ kind: 'Unauthorized', invalidToken: true });
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) {
    return fail({ kind: 'Unauthorized', invalidToken: true });
  }
  const parsed = ClaimsSchema.safeParse(payload);
  if (!parsed.success) return fail({ kind: 'Unauthorized', invalidToken: true });
  const claims = parsed.data;
  const tokenType = claims.type ?? 'session';
  const audiences = audienceList(claims.aud);

  if (tokenType === 'agent_access') {
    if (!audiences.includes(AGENT_AUDIENCE) || claims.typ !== AGENT_TYP) {
      return fail({ kind: 'Unauthorized', invalidToken: true });
    }
  } else if (config.audience && !audiences.includes(config.audience)) {
    return fail({ kind: 'Unauthorized', invalidToken: true });
  }
  if (tokenType !== 'session' && !(claims.scopes ?? []).some((scope) => READ_SCOPES.includes(scope))) {
    return fail({ kind: 'InsufficientScope' });
  }

  const projects = claims.scope?.projects?.filter((p) => p !== '') ?? [];
  const folders = claims.scope?.folders?.map((f) => f.replace(/^\/+|\/+$/g, '')).filter((f) => f !== '') ?? [];
  const canisterUser = claims.effective_canister_user_id?.trim();
  let allowedVaultIds = claims.allowed_vault_ids ?? null;
  if (tokenType === 'agent_access') {
    // An agent credential is bound to its vault_ids; with an allowlist as well, both must admit the vault.
    const bound = claims.vault_ids ?? [];
    allowedVaultIds = allowedVaultIds ? allowedVaultIds.filter((v) => bound.includes(v)) : bound;
  }

  return ok({
    sub: claims.sub,
    tokenType,
    role: normalizeRole(claims.role),
    canisterUserId: canisterUser ? canisterUser : claims.sub,
    allowedVaultIds,
    scope: projects.length > 0 || folders.length > 0 ? { projects, folders } : null,
    token,
  });
}
