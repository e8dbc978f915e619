/**
 * Worker configuration, parsed once per env object with zod. Everything
 * else takes a Config, never `env`. A missing or invalid value makes the
 * Worker answer 503 SERVICE_UNAVAILABLE; responses never say which value
 * failed. The failing variables are reported by NAME, with a reason from a
 * fixed vocabulary and never the value: in the request log line, in local
 * /health, and by `npm run check-config`, which runs this same schema.
 */
import * as z from 'zod/v4';

export const MIN_HMAC_SECRET_CHARS = 32;

/** Bounds and sets the schema accepts, named once so the reports can state them (they are not secret). */
export const CANISTER_TIMEOUT_MIN_MS = 100;
export const CANISTER_TIMEOUT_MAX_MS = 30_000;
export const CANISTER_TIMEOUT_DEFAULT_MS = 5_000;
export const ENVIRONMENTS = ['local', 'staging', 'production'] as const;
export const BOOLEAN_TEXT = ['true', 'false'] as const;
export const SWITCH_TEXT = ['on', 'off'] as const;

/** The server card and server.json `name` (src/http/server-identity.ts): both schemas' pattern, and their 3 to 200 characters. */
export const CARD_NAME_PATTERN = /^(?=.{3,200}$)[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value == null || value.trim() === '' ? undefined : value));

const optionalHmacSecret = optionalText.pipe(z.string().min(MIN_HMAC_SECRET_CHARS).optional());

const httpUrl = z.url({ protocol: /^https?$/ });

/** The hosts (as URL.hostname writes them) on which an OAuth identifier or the public origin may be http. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** An exact origin (scheme://host[:port], nothing after it), or null. */
function exactOrigin(value: string): URL | null {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value ? url : null;
  } catch {
    return null;
  }
}

/**
 * An OAuth identifier the Worker publishes or compares (RFC 9728 section 2 resource, RFC 8414
 * section 2 issuer): https, or http on a loopback host for local stacks and tests; no query or
 * fragment. The value is kept exactly as configured (issuer comparison is exact, RFC 9068 section 4).
 */
const oauthIdentifier = optionalText.superRefine((value, ctx) => {
  if (value === undefined) return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const secure = url !== undefined && (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)));
  if (!url || !secure || url.search !== '' || url.hash !== '' || value.includes('#') || value.includes('?')) {
    ctx.addIssue({ code: 'custom', message: 'oauth_identifier' });
  }
});

/** The Worker's public origin: an exact https origin (http only on loopback). */
const publicOrigin = optionalText.superRefine((value, ctx) => {
  if (value === undefined) return;
  const url = exactOrigin(value);
  if (!url || (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname))) {
    ctx.addIssue({ code: 'custom', message: 'public_origin' });
  }
});

const originList = optionalText.transform((value, ctx) => {
  if (value === undefined) return [];
  const origins = value.split(',').map((item) => item.trim()).filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) {
      ctx.addIssue({ code: 'custom', message: 'CORS_ORIGINS must list exact origins' });
      return z.NEVER;
    }
  }
  return origins;
});

/** A URL the Worker sends a credential to: no user info to leak in it, no fragment to drop silently. */
function isPlainEndpoint(value: string): boolean {
  const url = new URL(value);
  return url.username === '' && url.password === '' && !value.includes('#');
}

/** The variables the Worker reads, by name: the fixed vocabulary of configuration reports. */
export const EnvSchema = z.object({
    CANISTER_URL: httpUrl,
    CANISTER_AUTH_SECRET: optionalText,
    SESSION_SECRET: optionalHmacSecret,
    HUB_JWT_SECRET: optionalHmacSecret,
    SESSION_SECRET_PREVIOUS: optionalHmacSecret,
    JWT_JWKS_URL: optionalText.pipe(httpUrl.optional()),
    HOSTED_CONTEXT_URL: optionalText.pipe(httpUrl.refine(isPlainEndpoint, { message: 'endpoint_url' }).optional()),
    JWT_ISSUER: optionalText,
    JWT_AUDIENCE: optionalText,
    CORS_ORIGINS: originList,
    CANISTER_TIMEOUT_MS: optionalText
      .transform((value) => (value === undefined ? CANISTER_TIMEOUT_DEFAULT_MS : Number(value)))
      .pipe(z.number().int().min(CANISTER_TIMEOUT_MIN_MS).max(CANISTER_TIMEOUT_MAX_MS)),
    OAUTH_AUTHORIZATION_SERVER: oauthIdentifier,
    PUBLIC_ORIGIN: publicOrigin,
    LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: optionalText.pipe(z.enum(BOOLEAN_TEXT).default('false')),
    ENVIRONMENT: optionalText.pipe(z.enum(ENVIRONMENTS).default('production')),
    SCOOLING_SMOKE_ENABLED: optionalText.pipe(z.enum(BOOLEAN_TEXT).default('false')),
    SCOOLING_SMOKE_TOKEN: optionalText,
    SERVER_CARD_NAME: optionalText.pipe(z.string().regex(CARD_NAME_PATTERN).optional()),
    SERVER_WEBSITE_URL: optionalText.pipe(z.url({ protocol: /^https$/ }).optional()),
    MCP_APPS_VIEW: optionalText.pipe(z.enum(SWITCH_TEXT).default('on')),
});

/** The Workers static-assets binding, as far as the MCP Apps view uses it (src/http/mcp-view.ts). */
export interface AssetsBinding {
  fetch(request: Request): Promise<Response>;
}

/** The Workers Rate Limiting binding's API (only `key` is honoured in production); src/rate-limit.ts spends it. */
export interface RateLimitBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/**
 * The rate-limit bindings (wrangler.toml `[[ratelimits]]`), reported under their binding names:
 * reads (REST and MCP `tools/call`) and MCP protocol traffic that reads nothing.
 */
export const RATE_LIMITER_BINDING = 'RATE_LIMITER';
export const PROTOCOL_RATE_LIMITER_BINDING = 'PROTOCOL_RATE_LIMITER';
export const RATE_LIMIT_BINDINGS = [RATE_LIMITER_BINDING, PROTOCOL_RATE_LIMITER_BINDING] as const;

export type ConfigVariable = keyof z.infer<typeof EnvSchema> | (typeof RATE_LIMIT_BINDINGS)[number];
export const CONFIG_VARIABLES: readonly ConfigVariable[] = [...(Object.keys(EnvSchema.shape) as ConfigVariable[]), ...RATE_LIMIT_BINDINGS];

/** The variables that are secrets (`wrangler secret put`, never `[vars]`); every other schema name is a var. */
export const SECRET_VARIABLES = [
  'SESSION_SECRET',
  'SESSION_SECRET_PREVIOUS',
  'HUB_JWT_SECRET',
  'CANISTER_AUTH_SECRET',
  'SCOOLING_SMOKE_TOKEN',
] as const satisfies readonly (keyof typeof EnvSchema.shape)[];

/** Why a variable failed. A fixed vocabulary: never the value, never zod's own text. */
export type ConfigReason =
  | 'missing'
  | 'not_a_url'
  | 'too_short'
  | 'not_a_number'
  | 'out_of_range'
  | 'not_allowed'
  | 'not_exact_origins'
  | 'not_an_origin'
  | 'not_an_issuer'
  | 'not_https'
  | 'no_verification_key'
  | 'missing_binding'
  | 'invalid';

export interface ConfigProblem {
  variable: ConfigVariable;
  reason: ConfigReason;
}

export interface Config {
  canisterUrl: string;
  canisterAuthSecret: string | undefined;
  /** HMAC keys tried in order: the current secret, then the previous one (verify-only). */
  hmacSecrets: string[];
  jwksUrl: string | undefined;
  /**
   * The Hub's hosted-context endpoint (HOSTED_CONTEXT_URL): asked, with the caller's own token, for
   * the role, canister user, vault allowlist and scope of a shared-secret token that carries none.
   */
  hostedContextUrl: string | undefined;
  issuer: string | undefined;
  audience: string | undefined;
  corsOrigins: string[];
  canisterTimeoutMs: number;
  /** The authorization server's issuer identifier; required outside local mode. */
  authorizationServer: string | undefined;
  /**
   * The origin the Worker's OAuth resources are named under. Configured (PUBLIC_ORIGIN) outside
   * local mode, so a request's Host never decides it; null only with ENVIRONMENT=local, where the
   * request's own origin is used.
   */
  publicOrigin: string | null;
  /** Operator opt-in: `mcp_access` tokens with no `aud` at all are served (never tokens for another resource). */
  legacyTokensWithoutAudience: boolean;
  environment: 'local' | 'staging' | 'production';
  scoolingSmoke: { enabled: boolean; token: string | undefined };
  /** The server card and registry entry's reverse-DNS `name` (SERVER_CARD_NAME); unset: derived from the public origin. */
  serverCardName: string | undefined;
  /** serverInfo and card `websiteUrl` (SERVER_WEBSITE_URL); unset: omitted. */
  websiteUrl: string | undefined;
  /** Per-user limiter of reads (REST, MCP tools/call); null only where ENVIRONMENT=local runs without the binding (unlimited). */
  rateLimiter: RateLimitBinding | null;
  /** Per-user limiter of MCP protocol traffic that reads nothing (initialize, tools/list, ping, ...); null likewise. */
  protocolRateLimiter: RateLimitBinding | null;
  /**
   * The MCP Apps view (src/http/mcp-view.ts): the static-assets binding that holds it, or null when
   * MCP_APPS_VIEW=off or the Worker runs without its assets (bare Miniflare); then MCP is plain.
   */
  mcpAppsView: { assets: AssetsBinding } | null;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: ConfigProblem[] };

const cache = new WeakMap<object, ConfigResult>();

export function loadConfig(env: object): ConfigResult {
  const cached = cache.get(env);
  if (cached) return cached;
  const result = parseConfig(env);
  cache.set(env, result);
  return result;
}

export const isBlank = (value: unknown): boolean => value == null || (typeof value === 'string' && value.trim() === '');

function reasonFor(issue: z.core.$ZodIssue, raw: unknown): ConfigReason {
  if (isBlank(raw)) return 'missing';
  switch (issue.code) {
    case 'invalid_format':
      return issue.format === 'url' ? 'not_a_url' : 'invalid';
    case 'too_small':
      return issue.origin === 'string' ? 'too_short' : 'out_of_range';
    case 'too_big':
      return 'out_of_range';
    case 'invalid_type':
      return issue.expected === 'number' || issue.expected === 'int' ? 'not_a_number' : 'invalid';
    case 'invalid_value':
      return 'not_allowed';
    case 'custom':
      if (issue.message === 'endpoint_url') return 'not_a_url';
      return issue.message === 'oauth_identifier'
        ? 'not_an_issuer'
        : issue.message === 'public_origin'
          ? 'not_an_origin'
          : 'not_exact_origins';
    default:
      return 'invalid';
  }
}

/**
 * Validates the plain-text variables (wrangler vars and secrets) with the
 * Worker's schema and names each failing one, in schema order, with a fixed
 * reason. Shared by the Worker and `npm run check-config`.
 */
export function checkVariables(env: object): ConfigProblem[] {
  const raw = env as Record<string, unknown>;
  const problems: ConfigProblem[] = [];
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? '');
      if (!(variable in EnvSchema.shape) || seen.has(variable)) continue;
      seen.add(variable);
      problems.push({ variable: variable as ConfigVariable, reason: reasonFor(issue, raw[variable]) });
    }
  }
  const hasKey = ['SESSION_SECRET', 'HUB_JWT_SECRET', 'JWT_JWKS_URL'].some((name) => !isBlank(raw[name]));
  if (!hasKey) problems.push({ variable: 'SESSION_SECRET', reason: 'no_verification_key' });
  // Outside local mode the OAuth resource must name its authorization server and its own origin (RFC 9728 section 2).
  if (!isLocalEnvironment(env)) {
    for (const name of ['OAUTH_AUTHORIZATION_SERVER', 'PUBLIC_ORIGIN'] as const) {
      if (isBlank(raw[name])) problems.push({ variable: name, reason: 'missing' });
    }
    // Keys fetched over plain http could be swapped on the way, and every token verified with them.
    // The hosted context is asked with the caller's own token, which must not travel in the clear either.
    for (const name of ['JWT_JWKS_URL', 'HOSTED_CONTEXT_URL'] as const) {
      if (isPlainHttpOffLoopback(raw[name]) && !problems.some((p) => p.variable === name)) problems.push({ variable: name, reason: 'not_https' });
    }
  }
  const order = new Map(CONFIG_VARIABLES.map((name, index) => [name, index]));
  return problems.sort((a, b) => (order.get(a.variable) ?? 0) - (order.get(b.variable) ?? 0));
}

/** A Workers Rate Limiting binding, or null. */
function rateLimiterOf(env: object, name: (typeof RATE_LIMIT_BINDINGS)[number]): RateLimitBinding | null {
  const binding = (env as Record<string, unknown>)[name] as { limit?: unknown } | null | undefined;
  return binding != null && typeof binding === 'object' && typeof binding.limit === 'function'
    ? (binding as RateLimitBinding)
    : null;
}

/** The ASSETS binding (wrangler.toml [assets]), or null. */
function assetsOf(env: object): AssetsBinding | null {
  const binding = (env as Record<string, unknown>).ASSETS as { fetch?: unknown } | null | undefined;
  return binding != null && typeof binding === 'object' && typeof binding.fetch === 'function' ? (binding as AssetsBinding) : null;
}

/** An http: URL whose host is not loopback (a loopback host never leaves the machine, as for every OAuth identifier here). */
function isPlainHttpOffLoopback(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

/** True when the raw ENVIRONMENT is exactly `local`, whether or not the rest of the configuration is valid. */
export function isLocalEnvironment(env: object): boolean {
  const value = (env as Record<string, unknown>).ENVIRONMENT;
  return typeof value === 'string' && value.trim() === 'local';
}

function parseConfig(env: object): ConfigResult {
  const problems = checkVariables(env);
  const rateLimiter = rateLimiterOf(env, RATE_LIMITER_BINDING);
  const protocolRateLimiter = rateLimiterOf(env, PROTOCOL_RATE_LIMITER_BINDING);
  // Production and staging must not run without the limiters; only a local run may (bench, bare Miniflare).
  if (!isLocalEnvironment(env)) {
    if (!rateLimiter) problems.push({ variable: RATE_LIMITER_BINDING, reason: 'missing_binding' });
    if (!protocolRateLimiter) problems.push({ variable: PROTOCOL_RATE_LIMITER_BINDING, reason: 'missing_binding' });
  }
  const parsed = EnvSchema.safeParse(env);
  if (problems.length > 0 || !parsed.success) {
    return { ok: false, problems: problems.length > 0 ? problems : [{ variable: 'ENVIRONMENT', reason: 'invalid' }] };
  }
  const e = parsed.data;
  const assets = assetsOf(env);
  const primary = e.SESSION_SECRET ?? e.HUB_JWT_SECRET;
  const hmacSecrets = primary ? [primary] : [];
  if (primary && e.SESSION_SECRET_PREVIOUS && e.SESSION_SECRET_PREVIOUS !== primary) {
    hmacSecrets.push(e.SESSION_SECRET_PREVIOUS);
  }
  return {
    ok: true,
    config: {
      canisterUrl: e.CANISTER_URL.replace(/\/+$/, ''),
      canisterAuthSecret: e.CANISTER_AUTH_SECRET,
      hmacSecrets,
      jwksUrl: e.JWT_JWKS_URL,
      hostedContextUrl: e.HOSTED_CONTEXT_URL,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      corsOrigins: e.CORS_ORIGINS,
      canisterTimeoutMs: e.CANISTER_TIMEOUT_MS,
      authorizationServer: e.OAUTH_AUTHORIZATION_SERVER,
      publicOrigin: e.PUBLIC_ORIGIN ?? null,
      legacyTokensWithoutAudience: e.LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE === 'true',
      environment: e.ENVIRONMENT,
      scoolingSmoke: { enabled: e.SCOOLING_SMOKE_ENABLED === 'true', token: e.SCOOLING_SMOKE_TOKEN },
      serverCardName: e.SERVER_CARD_NAME,
      websiteUrl: e.SERVER_WEBSITE_URL,
      rateLimiter,
      protocolRateLimiter,
      mcpAppsView: e.MCP_APPS_VIEW === 'on' && assets ? { assets } : null,
    },
  };
}
