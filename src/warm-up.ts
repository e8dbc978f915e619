/**
 * Work every request repeats on its first run in an isolate, done once while the isolate starts
 * (which the platform overlaps with the TLS handshake): the configuration schema's first parse,
 * the verification of a constant token, and the analysis and builders on a constant note, so
 * their code is compiled before a request needs it. Constant input only: nothing here reads a
 * request, a note or a secret, and nothing of it is kept (the analysis clears its scratch after
 * each note). The token's verification is not awaited: it settles with the startup's microtasks,
 * as HMAC needs no I/O.
 */
import { authenticate, type Authentication } from './auth/jwt';
import { loadConfig } from './config';
import { buildAllContracts } from './contracts/registry';

/** A placeholder HMAC key of the warm-up configuration: it verifies the warm-up token and nothing else. */
export const WARM_UP_KEY = 'warm-up-key-of-no-deployment-0123456789';
const WARM_UP_ENV = { CANISTER_URL: 'https://canister.invalid', ENVIRONMENT: 'local', SESSION_SECRET: WARM_UP_KEY };
/** The claims `{"sub":"warm-up","exp":4102444800}` signed HS256 with WARM_UP_KEY. */
const WARM_UP_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3YXJtLXVwIiwiZXhwIjo0MTAyNDQ0ODAwfQ.-sqOumqxb4lI7oFe9iWc4Z3aqfTBK2xWCsQW-HCpaUU';
const WARM_UP_ORIGIN = 'https://warm-up.invalid';
const WARM_UP_RESOURCE = { origin: WARM_UP_ORIGIN, path: '', id: WARM_UP_ORIGIN, metadataUrl: `${WARM_UP_ORIGIN}/.well-known/oauth-protected-resource` } as const;
const WARM_UP_NOTE = '# Warm up\n\nText with *emphasis*, `code`, &amp; a [link](x).\n\n## Two\n\n- item\n';

export function warmUpRequestPath(): void {
  void verifyWarmUpToken();
  buildAllContracts('warm-up/note.md', { title: 'Warm up', tags: ['a'] }, WARM_UP_NOTE);
}

/** The warm-up token verified as a request's would be; null if the warm-up configuration were invalid. */
export async function verifyWarmUpToken(): Promise<Authentication | null> {
  const loaded = loadConfig(WARM_UP_ENV);
  return loaded.ok ? authenticate(`Bearer ${WARM_UP_TOKEN}`, loaded.config, WARM_UP_RESOURCE, 0) : null;
}
