// @ts-check
/**
 * Demo canister: a local stand-in for the Knowtation canister's note read API
 * (REFERENCE-CONTRACTS section 7), used by `npm start` and by the integration tests.
 *
 * Contract kept here:
 *  - `GET /api/v1/notes/<remainder>` answers `{"path","frontmatter","body"}` (frontmatter is JSON
 *    text) or 404 `{"error":"Not found","code":"NOT_FOUND"}`, partitioned by X-User-Id / X-Vault-Id.
 *  - Fail-closed gateway auth: every request except `/health` and OPTIONS must carry
 *    `X-Gateway-Auth` equal to the configured secret; an empty configured secret denies everything.
 *  - With `control: true` only, a test control API under `/__control/` seeds notes, injects
 *    faults and exposes a log of received requests.
 *
 * Plain ESM for Node 20; node:http plus the `yaml` package. Types for TypeScript callers live in
 * canister.d.mts next to this file.
 */
import { createServer } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/**
 * @typedef {import('node:http').IncomingMessage} IncomingMessage
 * @typedef {import('node:http').ServerResponse} ServerResponse
 * @typedef {import('node:net').Socket} Socket
 *
 * @typedef {object} StoredNote
 * @property {string} path
 * @property {string} frontmatter JSON text, as the canister stores it
 * @property {string} body
 * @property {string} [rawResponse] when set, the exact 200 response body for this note
 *
 * @typedef {{ kind: 'status', status: number, body?: string, contentType?: string }
 *   | { kind: 'text', body: string, contentType?: string }
 *   | { kind: 'hang' }
 *   | { kind: 'hang-body' }
 *   | { kind: 'reset' }
 *   | { kind: 'reset-mid-body' }
 *   | { kind: 'drip', chunks: number, intervalMs: number }
 *   | { kind: 'huge', bytes: number, declareLength?: boolean }} CanisterFault
 *
 * @typedef {object} RecordedRequest
 * @property {string} method
 * @property {string} url raw request target, including the query string
 * @property {Record<string, string | string[] | undefined>} headers lower-cased names
 */

const NOTES_PREFIX = '/api/v1/notes/';
const NOT_NOTE_REMAINDERS = new Set(['batch', 'delete-by-prefix']);
const CONTROL_PREFIX = '/__control/';
const JSON_TYPE = 'application/json';
const MAX_CONTROL_BODY_BYTES = 64 * 1024 * 1024;
const MAX_VAULT_ID_CHARS = 64;
const MAX_HUGE_BYTES = 1024 * 1024 * 1024;
const MAX_DRIP_CHUNKS = 100_000;
const MAX_DRIP_INTERVAL_MS = 600_000;
const HUGE_CHUNK_CHARS = 64 * 1024;
/** One line of filler for the `huge` fault; ASCII so every char is one byte once JSON-escaped, except the newline. */
const HUGE_FILLER_UNIT = 'Filler paragraph line streamed by the huge fault of the demo canister.\n';

const NOT_FOUND_BODY = JSON.stringify({ error: 'Not found', code: 'NOT_FOUND' });
const AUTH_REQUIRED_BODY = JSON.stringify({
  error: 'Gateway authentication required',
  code: 'GATEWAY_AUTH_REQUIRED',
});
const METHOD_NOT_ALLOWED_BODY = JSON.stringify({ error: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' });

/** `---` line, optional YAML lines, closing `---` line; LF or CRLF; the closing line may end the file. */
const FRONTMATTER_BLOCK = /^---\r?\n(?:([\s\S]*?)\r?\n)?---(?:\r?\n|$)/;

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
function userIdFrom(header) {
  if (header === undefined) return 'default';
  return Array.isArray(header) ? header.join(', ') : header;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isPlainObject(value) {
  return Object.prototype.toString.call(value) === '[object Object]';
}

/**
 * Splits a vault file into the canister's stored form, and says why a leading `---` block was not
 * taken as frontmatter. A leading YAML block that parses to a mapping becomes frontmatter JSON text
 * (YAML timestamps become ISO strings) and is removed from the body; the rest of the text is kept
 * unchanged. An empty block is an empty mapping. Invalid YAML, a non-mapping block, or no block at
 * all -> frontmatter `{}` and the whole text is the body.
 * @param {string} text
 * @returns {{ frontmatter: string, body: string, frontmatterProblem?: string }}
 */
function splitVaultNote(text) {
  const match = FRONTMATTER_BLOCK.exec(text);
  if (!match) return { frontmatter: '{}', body: text };
  const rest = text.slice(match[0].length);
  const yamlText = match[1] ?? '';
  let parsed;
  try {
    parsed = parseYaml(yamlText, { customTags: ['timestamp'], merge: true, logLevel: 'error' });
  } catch {
    return { frontmatter: '{}', body: text, frontmatterProblem: 'frontmatter is not valid YAML' };
  }
  if (parsed === null || parsed === undefined) return { frontmatter: '{}', body: rest };
  if (!isPlainObject(parsed)) return { frontmatter: '{}', body: text, frontmatterProblem: 'frontmatter is not a YAML mapping' };
  try {
    return { frontmatter: JSON.stringify(parsed), body: rest };
  } catch {
    // Self-referencing aliases cannot be stored as JSON text.
    return { frontmatter: '{}', body: text, frontmatterProblem: 'frontmatter cannot be stored as JSON' };
  }
}

/**
 * The canister's stored form of a vault file (see splitVaultNote).
 * @param {string} text
 * @returns {{ frontmatter: string, body: string }}
 */
export function parseVaultNote(text) {
  const { frontmatter, body } = splitVaultNote(text);
  return { frontmatter, body };
}

/** Largest vault file loaded: the Worker refuses note responses above 8 MiB anyway. */
export const MAX_VAULT_FILE_BYTES = 8 * 1024 * 1024;
/** Most notes loaded from one vault folder; the walk stops there and says so. */
export const MAX_VAULT_NOTES = 10_000;
/** Longest vault path the Worker accepts (src/vault/path.ts MAX_PATH_CHARS). */
const MAX_WORKER_PATH_CHARS = 1024;

/**
 * Why the Worker could never request this vault-relative path, or null when it can. The Worker
 * trims the requested path, turns `\` into `/` and refuses paths over 1024 characters, so a
 * file whose stored path differs after that is unreachable.
 * @param {string} relative
 * @returns {string | null}
 */
function unreachableReason(relative) {
  if (relative.length > MAX_WORKER_PATH_CHARS) return `path longer than ${MAX_WORKER_PATH_CHARS} characters`;
  if (relative.includes('\\')) return 'path contains a backslash, which the Worker reads as a folder separator';
  if (relative.trim() !== relative) return 'path starts or ends with whitespace, which the Worker trims';
  return null;
}

/** @param {unknown} error */
function errorCode(error) {
  const code = /** @type {NodeJS.ErrnoException} */ (error)?.code;
  return typeof code === 'string' ? code : 'read error';
}

/**
 * @typedef {object} VaultFileIssue
 * @property {string} path vault-relative, `/`-separated
 * @property {string} reason fixed wording, never file content
 *
 * @typedef {object} VaultReport
 * @property {Array<{ path: string, frontmatter: string, body: string }>} notes
 * @property {VaultFileIssue[]} skipped files (or folders) not loaded, with the reason
 * @property {VaultFileIssue[]} warnings files loaded with a caveat (e.g. broken frontmatter)
 * @property {boolean} limitReached true when the walk stopped at MAX_VAULT_NOTES
 */

/**
 * Every `*.md` file under vaultDir (recursively, in sorted order) in stored form, with
 * vault-relative `/`-separated paths. Never throws for one bad file or folder: it is skipped and
 * named in `skipped` (unreadable, symbolic link, not a regular file (a FIFO, socket or device), not UTF-8, over MAX_VAULT_FILE_BYTES, or a path
 * the Worker cannot request). Entries whose name starts with `.` (`.obsidian`, `.git`, `.trash`),
 * `node_modules` folders and files not ending in `.md` are ignored silently. A leading UTF-8 byte order mark is dropped.
 * Only a missing or unreadable vaultDir itself throws.
 * @param {string} vaultDir
 * @returns {Promise<VaultReport>}
 */
export async function readVault(vaultDir) {
  const root = path.resolve(vaultDir);
  /** @type {VaultReport} */
  const report = { notes: [], skipped: [], warnings: [], limitReached: false };
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const relativeOf = (/** @type {string} */ full) => path.relative(root, full).split(path.sep).join('/');
  /**
   * @param {string} dir
   * @param {boolean} isRoot
   */
  async function walk(dir, isRoot) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isRoot) throw error;
      report.skipped.push({ path: `${relativeOf(dir)}/`, reason: `folder unreadable (${errorCode(error)})` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (report.limitReached) return;
      if (entry.name.startsWith('.') || (entry.name === 'node_modules' && entry.isDirectory())) continue;
      const full = path.join(dir, entry.name);
      const relative = relativeOf(full);
      if (entry.isDirectory()) {
        await walk(full, false);
        continue;
      }
      if (!entry.name.endsWith('.md')) continue;
      if (entry.isSymbolicLink()) {
        report.skipped.push({ path: relative, reason: 'symbolic link (not followed)' });
        continue;
      }
      if (!entry.isFile()) {
        report.skipped.push({ path: relative, reason: 'not a regular file' });
        continue;
      }
      const unreachable = unreachableReason(relative);
      if (unreachable !== null) {
        report.skipped.push({ path: relative, reason: unreachable });
        continue;
      }
      let bytes;
      try {
        const info = await stat(full);
        if (info.size > MAX_VAULT_FILE_BYTES) {
          report.skipped.push({ path: relative, reason: `larger than ${MAX_VAULT_FILE_BYTES / (1024 * 1024)} MiB` });
          continue;
        }
        bytes = await readFile(full);
      } catch (error) {
        report.skipped.push({ path: relative, reason: `unreadable (${errorCode(error)})` });
        continue;
      }
      let text;
      try {
        text = decoder.decode(bytes);
      } catch {
        report.skipped.push({ path: relative, reason: 'not valid UTF-8' });
        continue;
      }
      if (report.notes.length >= MAX_VAULT_NOTES) {
        report.limitReached = true;
        return;
      }
      const { frontmatter, body, frontmatterProblem } = splitVaultNote(text);
      if (frontmatterProblem !== undefined) {
        report.warnings.push({ path: relative, reason: `${frontmatterProblem}: served with frontmatter {} and the block kept in the body` });
      }
      report.notes.push({ path: relative, frontmatter, body });
    }
  }
  await walk(root, true);
  return report;
}

/**
 * The notes of readVault, without the report.
 * @param {string} vaultDir
 * @returns {Promise<Array<{ path: string, frontmatter: string, body: string }>>}
 */
export async function loadVault(vaultDir) {
  return (await readVault(vaultDir)).notes;
}

/**
 * @param {string} value
 * @returns {Buffer}
 */
function sha256(value) {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * @param {string} user
 * @param {string} vault
 */
function partitionKey(user, vault) {
  return `${user}\u0000${vault}`;
}

/**
 * Validates a fault sent to the control API; returns an error message or the normalized fault.
 * `null` clears the fault.
 * @param {unknown} fault
 * @returns {{ ok: true, fault: CanisterFault | null } | { ok: false, error: string }}
 */
function validateFault(fault) {
  if (fault === null) return { ok: true, fault: null };
  if (!isPlainObject(fault)) return { ok: false, error: 'fault must be an object or null' };
  const optionalString = (/** @type {unknown} */ v) => v === undefined || typeof v === 'string';
  const isInt = (/** @type {unknown} */ v, /** @type {number} */ min, /** @type {number} */ max) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
  switch (fault.kind) {
    case 'status':
      if (!isInt(fault.status, 200, 599)) return { ok: false, error: 'status must be an integer 200..599' };
      if (!optionalString(fault.body) || !optionalString(fault.contentType)) {
        return { ok: false, error: 'body and contentType must be strings' };
      }
      return {
        ok: true,
        fault: {
          kind: 'status',
          status: /** @type {number} */ (fault.status),
          body: /** @type {string | undefined} */ (fault.body),
          contentType: /** @type {string | undefined} */ (fault.contentType),
        },
      };
    case 'text':
      if (typeof fault.body !== 'string') return { ok: false, error: 'body must be a string' };
      if (!optionalString(fault.contentType)) return { ok: false, error: 'contentType must be a string' };
      return {
        ok: true,
        fault: { kind: 'text', body: fault.body, contentType: /** @type {string | undefined} */ (fault.contentType) },
      };
    case 'hang':
    case 'hang-body':
    case 'reset':
    case 'reset-mid-body':
      return { ok: true, fault: { kind: fault.kind } };
    case 'drip':
      if (!isInt(fault.chunks, 1, MAX_DRIP_CHUNKS)) return { ok: false, error: `chunks must be an integer 1..${MAX_DRIP_CHUNKS}` };
      if (!isInt(fault.intervalMs, 0, MAX_DRIP_INTERVAL_MS)) {
        return { ok: false, error: `intervalMs must be an integer 0..${MAX_DRIP_INTERVAL_MS}` };
      }
      return {
        ok: true,
        fault: { kind: 'drip', chunks: /** @type {number} */ (fault.chunks), intervalMs: /** @type {number} */ (fault.intervalMs) },
      };
    case 'huge':
      if (!isInt(fault.bytes, 0, MAX_HUGE_BYTES)) return { ok: false, error: `bytes must be an integer 0..${MAX_HUGE_BYTES}` };
      if (fault.declareLength !== undefined && typeof fault.declareLength !== 'boolean') {
        return { ok: false, error: 'declareLength must be a boolean' };
      }
      return {
        ok: true,
        fault: { kind: 'huge', bytes: /** @type {number} */ (fault.bytes), declareLength: fault.declareLength === true },
      };
    default:
      return { ok: false, error: 'unknown fault kind' };
  }
}

/**
 * Normalizes a note sent to the control API into stored form.
 * @param {unknown} note
 * @returns {{ ok: true, note: StoredNote } | { ok: false, error: string }}
 */
function validateSeedNote(note) {
  if (!isPlainObject(note)) return { ok: false, error: 'each note must be an object' };
  if (typeof note.path !== 'string') return { ok: false, error: 'note.path must be a string' };
  if (note.body !== undefined && typeof note.body !== 'string') {
    return { ok: false, error: 'note.body must be a string (use raw for other shapes)' };
  }
  /** @type {string} */
  let frontmatter;
  if (note.frontmatter === undefined) frontmatter = '{}';
  else if (typeof note.frontmatter === 'string') frontmatter = note.frontmatter;
  else frontmatter = JSON.stringify(note.frontmatter);
  /** @type {StoredNote} */
  const stored = { path: note.path, frontmatter, body: note.body ?? '' };
  if (Object.prototype.hasOwnProperty.call(note, 'raw')) stored.rawResponse = JSON.stringify(note.raw);
  return { ok: true, note: stored };
}

/**
 * Total character count and newline count of the first `length` characters of the filler text.
 * @param {number} length
 */
function fillerNewlines(length) {
  const unitLength = HUGE_FILLER_UNIT.length;
  const fullUnits = Math.floor(length / unitLength);
  const tail = HUGE_FILLER_UNIT.slice(0, length % unitLength);
  return fullUnits + (tail.endsWith('\n') ? 1 : 0);
}

/**
 * The filler characters at positions [start, end) of the repeating filler text.
 * @param {number} start
 * @param {number} end
 */
function fillerSlice(start, end) {
  const unitLength = HUGE_FILLER_UNIT.length;
  let out = '';
  let position = start;
  while (position < end) {
    const offset = position % unitLength;
    const take = Math.min(unitLength - offset, end - position);
    out += HUGE_FILLER_UNIT.slice(offset, offset + take);
    position += take;
  }
  return out;
}

/**
 * Starts the demo canister.
 * @param {{ host?: string, port?: number, gatewaySecret?: string, vaultDir?: string,
 *   seedUser?: string, seedVault?: string, control?: boolean }} [options]
 * @returns {Promise<{ url: string, port: number, vault: (Omit<VaultReport, 'notes'> & { noteCount: number }) | undefined,
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
  /** Fail-closed: with no configured secret there is no digest and nothing is authorized. */
  const secretDigest = typeof gatewaySecret === 'string' && gatewaySecret !== '' ? sha256(gatewaySecret) : null;

  /** @type {Map<string, Map<string, StoredNote>>} */
  const notesByPartition = new Map();
  /** @type {Map<string, Map<string, CanisterFault>>} */
  const faultsByPartition = new Map();
  /** @type {Map<string, RecordedRequest[]>} */
  const requestsByUser = new Map();
  /** @type {Set<Socket>} */
  const sockets = new Set();
  /** @type {Set<ReturnType<typeof setTimeout>>} */
  const timers = new Set();
  let closed = false;

  /**
   * @param {string} user
   * @param {string} vault
   * @param {StoredNote} note
   */
  function putNote(user, vault, note) {
    const key = partitionKey(user, sanitizeVaultId(vault));
    let partition = notesByPartition.get(key);
    if (!partition) notesByPartition.set(key, (partition = new Map()));
    partition.set(note.path, note);
  }

  /** @type {Omit<VaultReport, 'notes'> & { noteCount: number } | undefined} */
  let vault;
  if (vaultDir !== undefined) {
    const { notes, ...issues } = await readVault(vaultDir);
    for (const note of notes) putNote(seedUser, seedVault, note);
    vault = { noteCount: notes.length, ...issues };
  }

  /**
   * @param {string | string[] | undefined} provided
   */
  function isAuthorized(provided) {
    if (secretDigest === null || typeof provided !== 'string') return false;
    return timingSafeEqual(sha256(provided), secretDigest);
  }

  /**
   * @param {() => void} fn
   * @param {number} ms
   */
  function schedule(fn, ms) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
    return timer;
  }

  /**
   * @param {ServerResponse} res
   * @param {number} status
   * @param {string} body
   * @param {Record<string, string>} [headers]
   */
  function send(res, status, body, headers = {}) {
    const payload = Buffer.from(body, 'utf8');
    res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': String(payload.length), ...headers });
    res.end(payload);
  }

  /**
   * @param {ServerResponse} res
   * @param {number} status
   * @param {string} error
   * @param {string} code
   */
  function sendError(res, status, error, code) {
    send(res, status, JSON.stringify({ error, code }));
  }

  /**
   * The 200 body for a note, or for a note that does not exist (body-producing faults still
   * deliver a valid note document for the requested path).
   * @param {StoredNote | undefined} note
   * @param {string} requestedPath
   */
  function noteDocument(note, requestedPath) {
    if (note?.rawResponse !== undefined) return note.rawResponse;
    if (note) return JSON.stringify({ path: note.path, frontmatter: note.frontmatter, body: note.body });
    return JSON.stringify({ path: requestedPath, frontmatter: '{}', body: '' });
  }

  /**
   * Applies a fault to an authenticated note request.
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {CanisterFault} fault
   * @param {StoredNote | undefined} note
   * @param {string} requestedPath
   */
  function applyFault(req, res, fault, note, requestedPath) {
    const socket = req.socket;
    switch (fault.kind) {
      case 'status': {
        const body = fault.body ?? JSON.stringify({ error: `Injected status ${fault.status}`, code: 'INJECTED_FAULT' });
        send(res, fault.status, body, fault.contentType ? { 'Content-Type': fault.contentType } : {});
        return;
      }
      case 'text':
        send(res, 200, fault.body, fault.contentType ? { 'Content-Type': fault.contentType } : {});
        return;
      case 'hang':
        // The socket stays open with no response until the client gives up or close() runs.
        return;
      case 'hang-body':
      case 'reset-mid-body': {
        const full = Buffer.from(noteDocument(note, requestedPath), 'utf8');
        const partial = full.subarray(0, Math.max(1, Math.floor(full.length / 2)));
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': String(full.length) });
        res.write(partial, () => {
          if (fault.kind === 'reset-mid-body') socket.destroy();
        });
        return;
      }
      case 'reset':
        if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket.destroy();
        return;
      case 'drip': {
        const full = Buffer.from(noteDocument(note, requestedPath), 'utf8');
        const pieces = Math.min(fault.chunks, Math.max(1, full.length));
        const size = Math.ceil(full.length / pieces);
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': String(full.length) });
        let offset = 0;
        /** @type {ReturnType<typeof setTimeout> | undefined} */
        let pending;
        res.on('close', () => {
          if (pending !== undefined) {
            clearTimeout(pending);
            timers.delete(pending);
          }
        });
        const writeNext = () => {
          pending = undefined;
          if (res.destroyed) return;
          const piece = full.subarray(offset, offset + size);
          offset += piece.length;
          if (offset >= full.length) {
            res.end(piece);
            return;
          }
          res.write(piece);
          pending = schedule(writeNext, fault.intervalMs);
        };
        writeNext();
        return;
      }
      case 'huge':
        streamHugeNote(res, requestedPath, fault.bytes, fault.declareLength === true);
        return;
    }
  }

  /**
   * Streams `{"path","frontmatter":"{}","body":<bytes chars>}` without holding the body in
   * memory, honouring backpressure and stopping as soon as the client goes away.
   * @param {ServerResponse} res
   * @param {string} requestedPath
   * @param {number} bodyChars
   * @param {boolean} declareLength
   */
  function streamHugeNote(res, requestedPath, bodyChars, declareLength) {
    const head = Buffer.from(`{"path":${JSON.stringify(requestedPath)},"frontmatter":"{}","body":"`, 'utf8');
    const tail = Buffer.from('"}', 'utf8');
    /** @type {Record<string, string>} */
    const headers = { 'Content-Type': JSON_TYPE };
    if (declareLength) {
      // Each newline is escaped as two bytes; every other filler character is one byte.
      const escapedBodyBytes = bodyChars + fillerNewlines(bodyChars);
      headers['Content-Length'] = String(head.length + escapedBodyBytes + tail.length);
    }
    res.writeHead(200, headers);
    res.write(head);
    let written = 0;
    let stopped = false;
    res.on('close', () => {
      stopped = true;
    });
    const pump = () => {
      while (!stopped && written < bodyChars) {
        const end = Math.min(bodyChars, written + HUGE_CHUNK_CHARS);
        const chunk = JSON.stringify(fillerSlice(written, end)).slice(1, -1);
        written = end;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!stopped) res.end(tail);
    };
    pump();
  }

  /**
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {string} remainder
   */
  function handleNoteRequest(req, res, remainder) {
    if (NOT_NOTE_REMAINDERS.has(remainder)) {
      send(res, 404, NOT_FOUND_BODY);
      return;
    }
    if (req.method !== 'GET') {
      send(res, 405, METHOD_NOT_ALLOWED_BODY, { Allow: 'GET' });
      return;
    }
    let decoded;
    try {
      decoded = decodeURIComponent(remainder);
    } catch {
      decoded = remainder;
    }
    const stripSlash = (/** @type {string} */ s) => (s.endsWith('/') ? s.slice(0, -1) : s);
    const candidates = [stripSlash(decoded), stripSlash(remainder)];
    const key = partitionKey(userIdFrom(req.headers['x-user-id']), sanitizeVaultId(req.headers['x-vault-id']));
    const notes = notesByPartition.get(key);
    const faults = faultsByPartition.get(key);
    const chosen = candidates.find((c) => faults?.has(c) || notes?.has(c)) ?? candidates[0];
    const note = notes?.get(chosen);
    const fault = faults?.get(chosen);
    if (fault) {
      applyFault(req, res, fault, note, chosen);
      return;
    }
    if (!note) {
      send(res, 404, NOT_FOUND_BODY);
      return;
    }
    send(res, 200, noteDocument(note, chosen));
  }

  /**
   * @param {IncomingMessage} req
   * @returns {Promise<{ ok: true, value: unknown } | { ok: false, status: number, error: string }>}
   */
  function readJsonBody(req) {
    return new Promise((resolve) => {
      /** @type {Buffer[]} */
      const chunks = [];
      let size = 0;
      let tooLarge = false;
      req.on('data', (/** @type {Buffer} */ chunk) => {
        size += chunk.length;
        if (size > MAX_CONTROL_BODY_BYTES) tooLarge = true;
        else chunks.push(chunk);
      });
      req.on('end', () => {
        if (tooLarge) {
          resolve({ ok: false, status: 413, error: 'Control request too large' });
          return;
        }
        try {
          resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch {
          resolve({ ok: false, status: 400, error: 'Invalid JSON' });
        }
      });
      req.on('error', () => resolve({ ok: false, status: 400, error: 'Request aborted' }));
    });
  }

  /**
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {string} route
   * @param {string} query
   */
  async function handleControl(req, res, route, query) {
    if (route === 'requests') {
      if (req.method !== 'GET') {
        send(res, 405, METHOD_NOT_ALLOWED_BODY, { Allow: 'GET' });
        return;
      }
      const user = new URLSearchParams(query).get('user');
      if (user === null) {
        sendError(res, 400, 'user query parameter is required', 'BAD_REQUEST');
        return;
      }
      send(res, 200, JSON.stringify(requestsByUser.get(user) ?? []));
      return;
    }
    if (route !== 'notes' && route !== 'faults') {
      send(res, 404, NOT_FOUND_BODY);
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, METHOD_NOT_ALLOWED_BODY, { Allow: 'POST' });
      return;
    }
    const parsed = await readJsonBody(req);
    if (!parsed.ok) {
      sendError(res, parsed.status, parsed.error, 'BAD_REQUEST');
      return;
    }
    const input = parsed.value;
    if (!isPlainObject(input)) {
      sendError(res, 400, 'Body must be a JSON object', 'BAD_REQUEST');
      return;
    }
    const user = input.user === undefined ? 'default' : input.user;
    const vault = input.vault === undefined ? 'default' : input.vault;
    if (typeof user !== 'string' || typeof vault !== 'string') {
      sendError(res, 400, 'user and vault must be strings', 'BAD_REQUEST');
      return;
    }
    if (route === 'notes') {
      if (!Array.isArray(input.notes)) {
        sendError(res, 400, 'notes must be an array', 'BAD_REQUEST');
        return;
      }
      /** @type {StoredNote[]} */
      const accepted = [];
      for (const candidate of input.notes) {
        const result = validateSeedNote(candidate);
        if (!result.ok) {
          sendError(res, 400, result.error, 'BAD_REQUEST');
          return;
        }
        accepted.push(result.note);
      }
      for (const note of accepted) putNote(user, vault, note);
      send(res, 200, JSON.stringify({ ok: true, seeded: accepted.length }));
      return;
    }
    if (typeof input.path !== 'string') {
      sendError(res, 400, 'path must be a string', 'BAD_REQUEST');
      return;
    }
    const result = validateFault(input.fault);
    if (!result.ok) {
      sendError(res, 400, result.error, 'BAD_REQUEST');
      return;
    }
    const key = partitionKey(user, sanitizeVaultId(vault));
    let partition = faultsByPartition.get(key);
    if (!partition) faultsByPartition.set(key, (partition = new Map()));
    if (result.fault === null) partition.delete(input.path);
    else partition.set(input.path, result.fault);
    send(res, 200, JSON.stringify({ ok: true }));
  }

  /**
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   */
  async function handle(req, res) {
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
    const query = queryStart === -1 ? '' : target.slice(queryStart + 1);

    const userHeader = req.headers['x-user-id'];
    if (control && userHeader !== undefined) {
      const user = userIdFrom(userHeader);
      let log = requestsByUser.get(user);
      if (!log) requestsByUser.set(user, (log = []));
      log.push({ method: req.method ?? '', url: target, headers: { ...req.headers } });
    }

    if (req.method === 'OPTIONS') {
      res.writeHead(204, { Allow: 'GET, OPTIONS' });
      res.end();
      return;
    }
    if (pathname === '/health') {
      if (req.method === 'GET' || req.method === 'HEAD') send(res, 200, JSON.stringify({ ok: true }));
      else send(res, 405, METHOD_NOT_ALLOWED_BODY, { Allow: 'GET' });
      return;
    }
    if (!isAuthorized(req.headers['x-gateway-auth'])) {
      send(res, 403, AUTH_REQUIRED_BODY);
      return;
    }
    if (pathname.startsWith(NOTES_PREFIX)) {
      handleNoteRequest(req, res, pathname.slice(NOTES_PREFIX.length));
      return;
    }
    if (control && pathname.startsWith(CONTROL_PREFIX)) {
      await handleControl(req, res, pathname.slice(CONTROL_PREFIX.length), query);
      return;
    }
    send(res, 404, NOT_FOUND_BODY);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500, 'Internal error', 'INTERNAL');
      else res.destroy();
    });
  });
  // Keep idle connections longer than any client pools them: with Node's 5 s default, a pooled
  // connection closed here while workerd reuses it surfaces as "Network connection lost".
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise((resolve, reject) => {
    const onError = (/** @type {Error} */ error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(undefined);
    });
  });

  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('demo canister: unexpected listen address');
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${address.port}`;

  return {
    url,
    port: address.port,
    vault,
    /**
     * Sorted paths of the notes stored for (user, vault). In-process only: no HTTP route lists
     * notes, as the real canister has none the Worker may use.
     * @param {string} [user]
     * @param {string} [vaultId]
     */
    listNotes(user = seedUser, vaultId = seedVault) {
      const partition = notesByPartition.get(partitionKey(user, sanitizeVaultId(vaultId)));
      return partition ? [...partition.keys()].sort() : [];
    },
    /** Stops listening and destroys every open socket, including hung and dripping responses. */
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise((resolve) => {
        server.close(() => resolve(undefined));
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
    },
  };
}
