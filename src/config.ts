/**
 * Worker configuration, parsed once per env object with zod. Everything
 * else takes a Config, never `env`. A missing or invalid value makes the
 * Worker answer 503 SERVICE_UNAVAILABLE; which value failed is never said.
 */
import { z } from 'zod';

const MIN_HMAC_SECRET_CHARS = 32;

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value == null || value.trim() === '' ? undefined : value));

const optionalHmacSecret = optionalText.pipe(z.string().min(MIN_HMAC_SECRET_CHARS).optional());

const httpUrl = z.url({ protocol: /^https?$/ });

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

const EnvSchema = z
  .object({
    CANISTER_URL: httpUrl,
    CANISTER_AUTH_SECRET: optionalText,
    SESSION_SECRET: optionalHmacSecret,
    HUB_JWT_SECRET: optionalHmacSecret,
    SESSION_SECRET_PREVIOUS: optionalHmacSecret,
    JWT_JWKS_URL: optionalText.pipe(httpUrl.optional()),
    JWT_ISSUER: optionalText,
    JWT_AUDIENCE: optionalText,
    CORS_ORIGINS: originList,
    CANISTER_TIMEOUT_MS: optionalText
      .transform((value) => (value === undefined ? 5_000 : Number(value)))
      .pipe(z.number().int().min(100).max(30_000)),
    OAUTH_AUTHORIZATION_SERVER: optionalText.pipe(httpUrl.optional()),
    ENVIRONMENT: optionalText.pipe(z.enum(['local', 'staging', 'production']).default('production')),
    SCOOLING_SMOKE_ENABLED: optionalText.pipe(z.enum(['true', 'false']).default('false')),
    SCOOLING_SMOKE_TOKEN: optionalText,
  })
  .refine((env) => env.SESSION_SECRET || env.HUB_JWT_SECRET || env.JWT_JWKS_URL, {
    message: 'a token verification key is required',
  });

export interface Config {
  canisterUrl: string;
  canisterAuthSecret: string | undefined;
  /** HMAC keys tried in order: the current secret, then the previous one (verify-only). */
  hmacSecrets: string[];
  jwksUrl: string | undefined;
  issuer: string | undefined;
  audience: string | undefined;
  corsOrigins: string[];
  canisterTimeoutMs: number;
  authorizationServer: string | undefined;
  environment: 'local' | 'staging' | 'production';
  scoolingSmoke: { enabled: boolean; token: string | undefined };
}

export type ConfigResult = { ok: true; config: Config } | { ok: false };

const cache = new WeakMap<object, ConfigResult>();

export function loadConfig(env: object): ConfigResult {
  const cached = cache.get(env);
  if (cached) return cached;
  const result = parseConfig(env);
  cache.set(env, result);
  return result;
}

function parseConfig(env: object): ConfigResult {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) return { ok: false };
  const e = parsed.data;
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
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      corsOrigins: e.CORS_ORIGINS,
      canisterTimeoutMs: e.CANISTER_TIMEOUT_MS,
      authorizationServer: e.OAUTH_AUTHORIZATION_SERVER,
      environment: e.ENVIRONMENT,
      scoolingSmoke: { enabled: e.SCOOLING_SMOKE_ENABLED === 'true', token: e.SCOOLING_SMOKE_TOKEN },
    },
  };
}
