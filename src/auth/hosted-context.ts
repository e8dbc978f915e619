/**
 * The hosted context of a principal whose shared-secret token carries none, from the Hub: one
 * GET of HOSTED_CONTEXT_URL with the caller's own bearer token and the request's vault
 * (`X-Vault-Id`), the request the Hub's own gateway makes of its bridge on every request
 * (aaronrene/knowtation: hub/gateway/server.mjs `getHostedAccessContext`, hub/bridge/server.mjs
 * `GET /api/v1/hosted-context`). The answer gives the role, the effective canister user, the vault
 * allowlist and the folder and project scope, with the meanings the gateway gives them.
 *
 * Invariants:
 * - the caller's token goes to HOSTED_CONTEXT_URL and nowhere else, through boundedGet (one
 *   deadline, a byte cap, no redirect followed);
 * - the answer is validated strictly: its `actor_sub` is the token's `sub`, every field the
 *   bridge sends has its type, the vault asked for is on its allowlist; anything else is
 *   refused (`hub_invalid`), never guessed;
 * - an answer or a refusal (401, 403) is remembered per isolate for at most
 *   HOSTED_CONTEXT_TTL_MS per (token, vault) under the configuration, never across tokens, so
 *   never across users; concurrent requests for one key share one call; an outage or an invalid
 *   answer is not remembered; at most MAX_REMEMBERED_CONTEXTS entries per configuration;
 * - a call is made only after `beforeCall` admits it (the gate spends the Hub-call budget there).
 */
import * as z from 'zod/v4';
import type { Config } from '../config';
import type { ReadError } from '../errors';
import { boundedGet } from '../bounded-fetch';
import { hasUnsafeCharacter } from '../unsafe-text';
import { normalizeRole } from './acl';
import { MAX_IDENTITY_CHARS, principalOf, type HostedScope, type Principal } from './jwt';

/** The gateway keeps a hosted context 5 s per (user, vault) (hub/gateway/server.mjs HOSTED_CTX_TTL_MS). */
export const HOSTED_CONTEXT_TTL_MS = 5_000;
export const MAX_REMEMBERED_CONTEXTS = 128;
/** 64 KiB: a real answer is well under 1 KiB; a workspace's allowlist and scope fit many times over. */
export const MAX_HOSTED_CONTEXT_BYTES = 64 * 1024;
/** Longest allowlist or scope list read from an answer. */
const MAX_LIST_ITEMS = 1_024;

/** Why the Hub's context could not be used, from a fixed vocabulary (the log line's `reason`). */
export type HostedContextRefusal =
  /** 403: the Hub refuses this user hosted access to this vault. */
  | 'hub_refused'
  /** 401: the Hub does not accept the token. */
  | 'hub_unauthorized'
  /** No answer, a 5xx or a 429: retry shortly. */
  | 'hub_unavailable'
  /** No answer within the deadline. */
  | 'hub_timeout'
  /** An answer that is not the hosted context of this token and vault, a redirect, another status, too large. */
  | 'hub_invalid'
  /** The principal's budget of Hub calls is spent. */
  | 'hub_budget';

export const HOSTED_CONTEXT_REFUSALS: readonly HostedContextRefusal[] = [
  'hub_refused',
  'hub_unauthorized',
  'hub_unavailable',
  'hub_timeout',
  'hub_invalid',
  'hub_budget',
];

/** The context as the gate uses it: a principal with the Hub's context, or why there is none. */
export type HostedContextOutcome =
  | { ok: true; principal: Principal; remembered: boolean }
  | { ok: false; reason: HostedContextRefusal; error: ReadError; remembered: boolean };

const stringList = z.array(z.string()).max(MAX_LIST_ITEMS);

/** The bridge's answer, field by field as `GET /api/v1/hosted-context` writes it; other keys are ignored. */
const HubAnswer = z.object({
  actor_sub: z.string(),
  workspace_owner_id: z.string().nullable(),
  effective_canister_user_id: z.string(),
  delegating: z.boolean(),
  allowed_vault_ids: stringList,
  scope: z.object({ projects: stringList, folders: stringList }).nullable(),
  /** The bridge's effectiveRole: a stored team role, else `admin` for an env admin, else `member`. */
  role: z.enum(['admin', 'editor', 'viewer', 'evaluator', 'member']),
  may_approve_proposals: z.boolean(),
});

/** How one call ended, or why it was not made (`hub_budget`, with the budget's own error). */
type CallRefusal = Exclude<HostedContextRefusal, 'hub_budget'>;
type Settled = { ok: true; principal: Principal } | { ok: false; reason: CallRefusal; error?: undefined } | { ok: false; reason: 'hub_budget'; error: ReadError };

/** The call, once `beforeCall` admits it. */
async function callAfter(beforeCall: () => Promise<ReadError | null>, call: () => Promise<Settled>): Promise<Settled> {
  const stop = await beforeCall();
  return stop ? { ok: false, reason: 'hub_budget', error: stop } : call();
}

/** What a principal takes from an answer. */
interface HubContext {
  role: Principal['role'];
  canisterUserId: string;
  allowedVaultIds: readonly string[];
  scope: HostedScope | null;
}

interface Remembered {
  settled: Promise<Settled>;
  /** Epoch ms after which the entry is not used; Infinity while the call is in flight. */
  until: number;
}

const memos = new WeakMap<Config, Map<string, Remembered>>();

/** A compact JWS and a vault id hold no line feed. */
const memoKey = (token: string, vaultId: string): string => `${token}\n${vaultId}`;

/**
 * The principal with the Hub's hosted context for `vaultId`, or the refusal. `token` is the
 * compact JWS the principal was verified from. `beforeCall` runs only when a call is about to be
 * made (not for a remembered or shared one) and returns a refusal to stop it.
 */
export async function hostedContextFor(
  config: Config,
  principal: Principal,
  token: string,
  vaultId: string,
  beforeCall: () => Promise<ReadError | null>,
): Promise<HostedContextOutcome> {
  const url = config.hostedContextUrl;
  if (url === undefined) return { ok: false, reason: 'hub_invalid', error: errorOf('hub_invalid'), remembered: false };
  let memo = memos.get(config);
  if (!memo) {
    memo = new Map();
    memos.set(config, memo);
  }
  const key = memoKey(token, vaultId);
  const now = Date.now();
  let kept = memo.get(key);
  const remembered = kept !== undefined && now < kept.until;
  if (kept && remembered) {
    // Kept as the most recently used.
    memo.delete(key);
    memo.set(key, kept);
  } else {
    if (kept) memo.delete(key);
    // In the memo before its first await, so concurrent requests for the key share this one call.
    const entry: Remembered = { settled: callAfter(beforeCall, () => askHub(url, config, principal, token, vaultId)), until: Infinity };
    if (memo.size >= MAX_REMEMBERED_CONTEXTS) memo.delete(memo.keys().next().value as string);
    memo.set(key, entry);
    kept = entry;
    void entry.settled.then((settled) => {
      const keep = settled.ok || settled.reason === 'hub_refused' || settled.reason === 'hub_unauthorized';
      if (keep) entry.until = Date.now() + HOSTED_CONTEXT_TTL_MS;
      else if (memo.get(key) === entry) memo.delete(key);
    });
  }
  const settled = await kept.settled;
  if (!settled.ok) return { ok: false, reason: settled.reason, error: settled.error ?? errorOf(settled.reason), remembered };
  return { ok: true, principal: settled.principal, remembered };
}

/** How each refusal is answered: 401 and 403 as the Hub said, 503 for an outage, 502 for an answer that cannot be used. */
function errorOf(reason: CallRefusal): ReadError {
  switch (reason) {
    case 'hub_refused':
      return { kind: 'HostedAccessRefused' };
    case 'hub_unauthorized':
      return { kind: 'Unauthorized', invalidToken: true };
    case 'hub_unavailable':
    case 'hub_timeout':
      return { kind: 'HostedContextUnavailable' };
    case 'hub_invalid':
      return { kind: 'HostedContextInvalid' };
  }
}

/** One call of the Hub; never throws. A remembered answer is the finished principal, so a later request builds nothing. */
async function askHub(url: string, config: Config, principal: Principal, token: string, vaultId: string): Promise<Settled> {
  // The bridge reads exactly `Bearer <token>` (requireBridgeAuth), so the token is sent in that one spelling.
  const headers = { Authorization: `Bearer ${token}`, 'X-Vault-Id': vaultId, Accept: 'application/json' };
  const answer = await boundedGet(url, headers, { deadlineMs: config.canisterTimeoutMs, maxBytes: MAX_HOSTED_CONTEXT_BYTES });
  if (!answer.ok) {
    if (answer.failure === 'timeout') return { ok: false, reason: 'hub_timeout' };
    if (answer.failure === 'unreachable') return { ok: false, reason: 'hub_unavailable' };
    if (answer.failure === 'too_large') return { ok: false, reason: 'hub_invalid' };
    const status = answer.status as number;
    if (status === 401) return { ok: false, reason: 'hub_unauthorized' };
    if (status === 403) return { ok: false, reason: 'hub_refused' };
    if (status === 429 || status >= 500) return { ok: false, reason: 'hub_unavailable' };
    return { ok: false, reason: 'hub_invalid' };
  }
  if (answer.status !== 200) return { ok: false, reason: 'hub_invalid' };
  const context = contextOf(answer.bytes, principal.sub, vaultId);
  if (!context) return { ok: false, reason: 'hub_invalid' };
  return { ok: true, principal: principalOf({ ...principal, ...context, context: 'hub' }) };
}

/** The context in an answer's bytes, or null when they are not this token's hosted context for this vault. */
export function contextOf(bytes: Uint8Array, sub: string, vaultId: string): HubContext | null {
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return null;
  }
  // The bridge answers an error as `{error, code}` with an error status; one inside a 200 is not a context.
  if (data === null || typeof data !== 'object' || Object.hasOwn(data, 'error')) return null;
  const parsed = HubAnswer.safeParse(data);
  if (!parsed.success) return null;
  const answer = parsed.data;
  const canisterUserId = answer.effective_canister_user_id.trim();
  if (answer.actor_sub !== sub || canisterUserId === '' || canisterUserId.length > MAX_IDENTITY_CHARS) return null;
  if (!answer.allowed_vault_ids.includes(vaultId)) return null;
  const scopeValues = answer.scope ? [...answer.scope.projects, ...answer.scope.folders] : [];
  if ([canisterUserId, ...answer.allowed_vault_ids, ...scopeValues].some(hasUnsafeCharacter)) return null;
  // As the gateway reads it (scopeActiveForGateway): a scope with neither projects nor folders is no scope.
  const scope = answer.scope && (answer.scope.projects.length > 0 || answer.scope.folders.length > 0) ? answer.scope : null;
  return {
    // The gateway's ACL falls back to the read tools for any other role, `member` included (normalizeRole).
    role: normalizeRole(answer.role),
    canisterUserId,
    allowedVaultIds: Object.freeze([...answer.allowed_vault_ids]),
    scope: scope && Object.freeze({ projects: Object.freeze([...scope.projects]), folders: Object.freeze([...scope.folders]) }),
  };
}

/** The number of contexts kept for a configuration (tests). */
export function rememberedContextCount(config: Config): number {
  return memos.get(config)?.size ?? 0;
}
