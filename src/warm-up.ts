/**
 * Work every request repeats on its first run in an isolate, done once while the isolate starts
 * (which the platform overlaps with the TLS handshake): the configuration schema's first parse,
 * the verification of a constant token, a read's checks for its principal, the decoding of a
 * constant canister answer, the analysis and builders on a constant note and the log line's
 * formatting, so their code is compiled before a request needs it. Constant input only: nothing
 * here reads a request, a note or a secret, nothing is written or fetched, and nothing of it is
 * kept (the analysis clears its scratch after each note). The token's verification is not awaited:
 * it settles with the startup's microtasks, as HMAC needs no I/O.
 */
import { contractsForRole } from './auth/acl';
import { authenticate, type Authentication, type Principal } from './auth/jwt';
import { loadConfig } from './config';
import { decodeWireFrontmatter } from './contracts';
import { buildAllContracts } from './contracts/registry';
import { singlePathParam } from './http/query';
import { defaultLog, formatLogLine } from './log';
import { noteFromAnswer } from './vault/canister';
import { admitVault, isOutsideScopeUnread, normalizeVaultPath, requestedVault } from './vault/path';

/** A placeholder HMAC key of the warm-up configuration: it verifies the warm-up token and nothing else. */
export const WARM_UP_KEY = 'warm-up-key-of-no-deployment-0123456789';
const WARM_UP_ENV = {
  CANISTER_URL: 'https://canister.invalid',
  CANISTER_AUTH_SECRET: 'warm-up-gateway-secret',
  CANISTER_TIMEOUT_MS: '5000',
  ENVIRONMENT: 'local',
  SESSION_SECRET: WARM_UP_KEY,
};
/** The claims `{"sub":"warm-up","exp":4102444800}` signed HS256 with WARM_UP_KEY. */
const WARM_UP_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3YXJtLXVwIiwiZXhwIjo0MTAyNDQ0ODAwfQ.-sqOumqxb4lI7oFe9iWc4Z3aqfTBK2xWCsQW-HCpaUU';
const WARM_UP_ORIGIN = 'https://warm-up.invalid';
const WARM_UP_RESOURCE = { origin: WARM_UP_ORIGIN, path: '', id: WARM_UP_ORIGIN, metadataUrl: `${WARM_UP_ORIGIN}/.well-known/oauth-protected-resource` } as const;
const WARM_UP_NOTE = '# Warm up\n\nText with *emphasis*, `code`, &amp; a [link](x).\n\n## Two\n\n- item\n';
const WARM_UP_PATH = 'warm-up/note.md';
const WARM_UP_READ_URL = `${WARM_UP_ORIGIN}/?path=${encodeURIComponent(WARM_UP_PATH)}`;
/** A canister answer for the warm-up note, as its bytes arrive. */
const WARM_UP_ANSWER = new TextEncoder().encode(JSON.stringify({ path: WARM_UP_PATH, frontmatter: '{"title":"Warm up","tags":["a"]}', body: WARM_UP_NOTE }));

/**
 * Runs the warm-up. Everything but the token's verification runs before it returns; it resolves
 * true when every step ran on its constant input as a request's would (test/worker/warm-up.test.ts).
 */
export async function warmUpRequestPath(): Promise<boolean> {
  const verifying = verifyWarmUpToken();
  const note = noteFromAnswer(WARM_UP_ANSWER, WARM_UP_PATH);
  if (note.ok) buildAllContracts(WARM_UP_PATH, decodeWireFrontmatter(note.value.frontmatter), note.value.body);
  formatLogLine({ ...defaultLog('warm-up'), surface: 'rest', op: 'warm_up', upstream: '2xx', sections: 2, truncated: false });
  const authentication = await verifying;
  return note.ok && authentication?.ok === true && warmUpReadChecks(authentication.principal);
}

/** The checks gate.ts and read-note.ts run for a read, on the warm-up principal and path; true when they admit it. */
function warmUpReadChecks(principal: Principal): boolean {
  const path = normalizeVaultPath(singlePathParam(new URL(WARM_UP_READ_URL)));
  const vault = requestedVault(principal, { header: null, endpoint: null });
  const admitted = vault.ok && admitVault(principal, vault.value).ok;
  return path.ok && admitted && contractsForRole(principal.role).length > 0 && !isOutsideScopeUnread(principal, path.value);
}

/** The warm-up token verified as a request's would be; null if the warm-up configuration were invalid. */
export async function verifyWarmUpToken(): Promise<Authentication | null> {
  const loaded = loadConfig(WARM_UP_ENV);
  // Not remembered: each run verifies, as a request's first sight of a token does.
  return loaded.ok ? authenticate(`Bearer ${WARM_UP_TOKEN}`, loaded.config, WARM_UP_RESOURCE, 0, { remember: false }) : null;
}
