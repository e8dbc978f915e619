/**
 * Work every request repeats on its first run in an isolate, done once while the isolate starts
 * (which the platform overlaps with the TLS handshake): the configuration schema's first parse,
 * and the analysis and builders on a constant note, so their code is compiled before a request
 * needs it. Constant input only: nothing here reads a request, a note or a secret, and nothing
 * of it is kept (the analysis clears its scratch after each note).
 */
import { loadConfig } from './config';
import { buildAllContracts } from './contracts/registry';

const WARM_UP_ENV = { CANISTER_URL: 'https://canister.invalid', ENVIRONMENT: 'local' };
const WARM_UP_NOTE = '# Warm up\n\nText with *emphasis*, `code`, &amp; a [link](x).\n\n## Two\n\n- item\n';

export function warmUpRequestPath(): void {
  loadConfig(WARM_UP_ENV);
  buildAllContracts('warm-up/note.md', { title: 'Warm up', tags: ['a'] }, WARM_UP_NOTE);
}
