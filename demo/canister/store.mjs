// @ts-check
/**
 * What the demo canister holds: notes and faults per (user, vault) partition, and, with the control
 * API, a log of the requests received per user. Users are taken verbatim; vault ids are sanitized as
 * the canister does (sanitizeVaultId).
 */

/**
 * @typedef {object} StoredNote
 * @property {string} path
 * @property {string} frontmatter JSON text, as the canister stores it
 * @property {string} body
 * @property {string} [rawResponse] when set, the exact 200 response body for this note
 *
 * @typedef {import('./faults.mjs').CanisterFault} CanisterFault
 *
 * @typedef {object} RecordedRequest
 * @property {string} method
 * @property {string} url raw request target, including the query string
 * @property {Record<string, string | string[] | undefined>} headers lower-cased names
 */

const MAX_VAULT_ID_CHARS = 64;

/**
 * Vault id as the canister derives it from X-Vault-Id: trimmed, every character outside
 * [A-Za-z0-9_-] replaced by `_`, at most 64 characters, empty or absent -> `default`.
 * Characters are Unicode code points, so one emoji becomes one `_`.
 * @param {string | string[] | undefined | null} header
 * @returns {string}
 */
export function sanitizeVaultId(header) {
  if (typeof header !== 'string') return 'default';
  const sanitized = Array.from(header.trim(), (ch) => (/^[A-Za-z0-9_-]$/.test(ch) ? ch : '_'))
    .slice(0, MAX_VAULT_ID_CHARS)
    .join('');
  return sanitized === '' ? 'default' : sanitized;
}

/**
 * Canister user for a request: the X-User-Id header verbatim, or the literal `default` when absent.
 * @param {string | string[] | undefined} header
 * @returns {string}
 */
export function userIdFrom(header) {
  if (header === undefined) return 'default';
  return Array.isArray(header) ? header.join(', ') : header;
}

/**
 * @param {string} user
 * @param {string} vault unsanitized
 */
function partitionKey(user, vault) {
  return `${user}\u0000${sanitizeVaultId(vault)}`;
}

/**
 * The entry of `map` under `key`, created empty when missing.
 * @template V
 * @param {Map<string, Map<string, V>>} map
 * @param {string} key
 * @returns {Map<string, V>}
 */
function partitionOf(map, key) {
  let partition = map.get(key);
  if (!partition) map.set(key, (partition = new Map()));
  return partition;
}

export class CanisterStore {
  /** @type {Map<string, Map<string, StoredNote>>} */
  #notes = new Map();
  /** @type {Map<string, Map<string, CanisterFault>>} */
  #faults = new Map();
  /** @type {Map<string, RecordedRequest[]>} */
  #requests = new Map();

  /**
   * @param {string} user
   * @param {string} vault
   * @param {StoredNote} note
   */
  putNote(user, vault, note) {
    partitionOf(this.#notes, partitionKey(user, vault)).set(note.path, note);
  }

  /**
   * Sets (or, with null, clears) the fault for one path of a partition.
   * @param {string} user
   * @param {string} vault
   * @param {string} notePath
   * @param {CanisterFault | null} fault
   */
  setFault(user, vault, notePath, fault) {
    const partition = partitionOf(this.#faults, partitionKey(user, vault));
    if (fault === null) partition.delete(notePath);
    else partition.set(notePath, fault);
  }

  /**
   * The first candidate path with a fault or a note in the partition (else the first candidate),
   * with what is stored for it.
   * @param {string} user
   * @param {string} vault
   * @param {string[]} candidates
   * @returns {{ path: string, note: StoredNote | undefined, fault: CanisterFault | undefined }}
   */
  lookup(user, vault, candidates) {
    const key = partitionKey(user, vault);
    const notes = this.#notes.get(key);
    const faults = this.#faults.get(key);
    const chosen = candidates.find((c) => faults?.has(c) || notes?.has(c)) ?? candidates[0];
    return { path: chosen, note: notes?.get(chosen), fault: faults?.get(chosen) };
  }

  /**
   * Sorted paths stored for (user, vault).
   * @param {string} user
   * @param {string} vault
   * @returns {string[]}
   */
  listNotes(user, vault) {
    const partition = this.#notes.get(partitionKey(user, vault));
    return partition ? [...partition.keys()].sort() : [];
  }

  /**
   * @param {string} user
   * @param {RecordedRequest} entry
   */
  recordRequest(user, entry) {
    let log = this.#requests.get(user);
    if (!log) this.#requests.set(user, (log = []));
    log.push(entry);
  }

  /**
   * @param {string} user
   * @returns {RecordedRequest[]}
   */
  requestsOf(user) {
    return this.#requests.get(user) ?? [];
  }
}
