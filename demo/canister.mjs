// @ts-check
/**
 * Demo canister: a local stand-in for the Knowtation canister's note read API
 * (the store contract, docs/STORE.md), used by `npm start` and by the integration tests.
 *
 * Contract kept here:
 *  - `GET /api/v1/notes/<remainder>` answers `{"path","frontmatter","body"}` (frontmatter is JSON
 *    text) or 404 `{"error":"Not found","code":"NOT_FOUND"}`, partitioned by X-User-Id / X-Vault-Id.
 *  - Fail-closed gateway auth: every request except `/health` and OPTIONS must carry
 *    `X-Gateway-Auth` equal to the configured secret; an empty configured secret denies everything.
 *  - Loopback only: it listens on a loopback address, and a request whose Host is not its own
 *    `<address>:<port>` or `localhost:<port>` gets 421 before anything else (DNS rebinding).
 *  - With `control: true` only, a test control API under `/__control/` seeds notes, injects
 *    faults and exposes a log of received requests.
 *
 * This file is the public entry; the parts live in canister/: vault.mjs (reading a folder of notes),
 * store.mjs (partitions), faults.mjs (fault injection), control.mjs (control API), server.mjs (HTTP),
 * http.mjs (answers). Plain ESM for Node 20; node:http plus the `yaml` package. Types for
 * TypeScript callers live in canister.d.mts next to this file.
 */
import { isLoopbackHost } from './lib/loopback.mjs';
import { startCanisterServer } from './canister/server.mjs';
import { CanisterStore } from './canister/store.mjs';
import { readVault } from './canister/vault.mjs';

export { MAX_VAULT_FILE_BYTES, MAX_VAULT_NOTES, loadVault, parseVaultNote, readVault } from './canister/vault.mjs';
export { sanitizeVaultId } from './canister/store.mjs';

/**
 * @typedef {import('./canister/vault.mjs').VaultReport} VaultReport
 * @typedef {Omit<VaultReport, 'notes'> & { noteCount: number }} VaultSummary
 */

/**
 * Loads every note of vaultDir into (user, vault) of the store.
 * @param {CanisterStore} store
 * @param {string} vaultDir
 * @param {string} user
 * @param {string} vault
 * @returns {Promise<VaultSummary>}
 */
async function seedFromVault(store, vaultDir, user, vault) {
  const { notes, ...issues } = await readVault(vaultDir);
  for (const note of notes) store.putNote(user, vault, note);
  return { noteCount: notes.length, ...issues };
}

/**
 * Starts the demo canister. A `host` that is not a loopback address (127.0.0.0/8, ::1, localhost)
 * is refused with a TypeError before anything is read or bound.
 * @param {{ host?: string, port?: number, gatewaySecret?: string, vaultDir?: string,
 *   seedUser?: string, seedVault?: string, control?: boolean }} [options]
 * @returns {Promise<{ url: string, port: number, vault: VaultSummary | undefined,
 *   listNotes(user?: string, vaultId?: string): string[], close(): Promise<void> }>}
 */
export async function startDemoCanister({
  host = '127.0.0.1',
  port = 0,
  gatewaySecret,
  vaultDir,
  seedUser = 'demo',
  seedVault = 'default',
  control = false,
} = {}) {
  if (!isLoopbackHost(host)) throw new TypeError('demo canister: host must be a loopback address (127.0.0.1, ::1 or localhost)');
  const store = new CanisterStore();
  const vault = vaultDir === undefined ? undefined : await seedFromVault(store, vaultDir, seedUser, seedVault);
  const server = await startCanisterServer({ host, port, store, gatewaySecret, control });
  return {
    url: server.url,
    port: server.port,
    vault,
    /**
     * Sorted paths of the notes stored for (user, vault). In-process only: no HTTP route lists
     * notes, as the real canister has none the Worker may use.
     * @param {string} [user]
     * @param {string} [vaultId]
     */
    listNotes(user = seedUser, vaultId = seedVault) {
      return store.listNotes(user, vaultId);
    },
    /** Stops listening and destroys every open socket, including hung and dripping responses. */
    close: () => server.close(),
  };
}
