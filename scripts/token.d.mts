// Types for scripts/token.mjs (kept in step with its JSDoc), for TypeScript callers (tests, bench).

export const TOKEN_TYPES: readonly ['session', 'mcp_access', 'agent_access'];
export const KNOWN_ROLES: readonly ['viewer', 'editor', 'evaluator', 'admin'];
export const MIN_HMAC_SECRET_CHARS: number;
export const USAGE: string;

export class TokenUsageError extends Error {}

export interface TokenOptions {
  sub: string;
  role: string;
  type: (typeof TOKEN_TYPES)[number];
  /** Adds allowed_vault_ids: [vault] (agent_access: also vault_ids). */
  vault?: string;
  /** Adds effective_canister_user_id. */
  canisterUser?: string;
  scopeFolders?: string[];
  scopeProjects?: string[];
  /** The OAuth scopes claim. */
  scopes?: string[];
  ttlSeconds: number;
  /** Issue time in seconds since the epoch (default: now). */
  now?: number;
}

export function parseTtl(text: string): number;
export function buildClaims(options: TokenOptions): Record<string, unknown>;
export function mintToken(options: TokenOptions & { secret: string }): Promise<string>;
/** A viewer session token; the key defaults to the published dev secret. */
export function mintViewerToken(sub: string, ttlSeconds: number, secret?: string): Promise<string>;
export function parseTokenArgs(
  argv: string[],
  env: Record<string, string | undefined>,
): { help: true } | { help: false; options: TokenOptions & { secret: string }; warnings: string[] };
