/**
 * The configuration in words for people: the line `npm run check-config` (and the other scripts)
 * print for each problem, with the bounds and sets the schema sets, and the warnings about a
 * configuration the Worker accepts but that would not do what its operator expects. Kept apart
 * from src/config.ts, which the Worker runs: none of this text is deployed.
 */
import {
  BOOLEAN_TEXT,
  CANISTER_TIMEOUT_DEFAULT_MS,
  CANISTER_TIMEOUT_MAX_MS,
  CANISTER_TIMEOUT_MIN_MS,
  ENVIRONMENTS,
  MIN_HMAC_SECRET_CHARS,
  SWITCH_TEXT,
  isBlank,
  isLocalEnvironment,
  type ConfigProblem,
  type ConfigReason,
  type ConfigVariable,
} from './config';

/** One line of explanation per reason, for people (check-config, DEPLOY.md). */
export const CONFIG_REASON_TEXT: Record<ConfigReason, string> = {
  missing: 'required and not set',
  not_a_url: 'must be an http:// or https:// URL',
  too_short: `must be at least ${MIN_HMAC_SECRET_CHARS} characters`,
  not_a_number: 'must be an integer',
  out_of_range: 'is outside its allowed range',
  not_allowed: 'is not one of the allowed values',
  not_exact_origins: 'must be a comma-separated list of exact origins (scheme://host[:port], no path)',
  not_an_origin: 'must be one exact https origin (scheme://host[:port], no path or trailing slash; http only on a loopback host)',
  not_an_issuer: 'must be an https URL without query or fragment (http only on a loopback host)',
  not_https: 'must be an https URL outside ENVIRONMENT=local (http only on a loopback host): keys that verify tokens, and the tokens sent for a hosted context, must not travel in the clear',
  no_verification_key: 'no token verification key: set SESSION_SECRET, HUB_JWT_SECRET or JWT_JWKS_URL',
  missing_binding: 'this rate-limit binding is missing (wrangler.toml [[ratelimits]] with this name)',
  invalid: 'is invalid',
};

const oneOf = (values: readonly string[]): string => `must be one of: ${values.join(', ')}`;
const TIMEOUT_RANGE = `must be an integer from ${CANISTER_TIMEOUT_MIN_MS} to ${CANISTER_TIMEOUT_MAX_MS} (milliseconds; unset means ${CANISTER_TIMEOUT_DEFAULT_MS})`;

/**
 * What a variable must be, where the reason alone does not say: the range of `out_of_range` and
 * `not_a_number`, the set of `not_allowed`. These bounds are part of the schema, never a value.
 */
const PROBLEM_DETAIL: Partial<Record<ConfigVariable, Partial<Record<ConfigReason, string>>>> = {
  CANISTER_TIMEOUT_MS: { out_of_range: TIMEOUT_RANGE, not_a_number: TIMEOUT_RANGE },
  ENVIRONMENT: { not_allowed: oneOf(ENVIRONMENTS) },
  LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: { not_allowed: oneOf(BOOLEAN_TEXT) },
  SCOOLING_SMOKE_ENABLED: { not_allowed: oneOf(BOOLEAN_TEXT) },
  SERVER_CARD_NAME: { invalid: 'must be a reverse-DNS namespace, /, a name (3 to 200 characters; e.g. com.example/knowtation-edge)' },
  SERVER_WEBSITE_URL: { not_a_url: 'must be an https URL' },
  HOSTED_CONTEXT_URL: { not_a_url: "must be the full http(s) URL of the Hub's GET /api/v1/hosted-context, without user info or fragment" },
  MCP_APPS_VIEW: { not_allowed: oneOf(SWITCH_TEXT) },
  RATE_LIMITER: {
    invalid: 'wrangler.toml [[ratelimits]] name = "RATE_LIMITER" needs simple = { limit = <an integer from 1>, period = 10 or 60 }',
  },
  PROTOCOL_RATE_LIMITER: {
    invalid: 'wrangler.toml [[ratelimits]] name = "PROTOCOL_RATE_LIMITER" needs simple = { limit = <an integer from 1>, period = 10 or 60 }',
  },
};

/**
 * One line for people on one problem (`npm run check-config`): the variable's own bounds or
 * allowed set where it has them, else the reason's text. The reports that machines read
 * (local /health, the log line) keep the bare `{ variable, reason }`.
 */
export function describeConfigProblem(problem: ConfigProblem): string {
  return PROBLEM_DETAIL[problem.variable]?.[problem.reason] ?? CONFIG_REASON_TEXT[problem.reason];
}

/** Why a valid configuration may still not do what its operator expects. A fixed vocabulary. */
export type ConfigWarningReason = 'no_hosted_context';

export interface ConfigWarning {
  variable: ConfigVariable;
  reason: ConfigWarningReason;
}

export const CONFIG_WARNING_TEXT: Record<ConfigWarningReason, string> = {
  no_hosted_context:
    "is unset while shared-secret tokens are accepted: a token that carries no hosted context of its own (the Hub's mcp_access and session tokens) is read as its own user's partition with the viewer role, so workspace members see none of the workspace's notes and no folder scope applies. Set it to the Hub's GET /api/v1/hosted-context URL",
};

/** Warnings about a configuration the Worker accepts; outside ENVIRONMENT=local only. */
export function configWarnings(env: object): ConfigWarning[] {
  const raw = env as Record<string, unknown>;
  if (isLocalEnvironment(env)) return [];
  const sharedSecret = ['SESSION_SECRET', 'HUB_JWT_SECRET'].some((name) => !isBlank(raw[name]));
  return sharedSecret && isBlank(raw.HOSTED_CONTEXT_URL) ? [{ variable: 'HOSTED_CONTEXT_URL', reason: 'no_hosted_context' }] : [];
}
