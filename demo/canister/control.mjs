// @ts-check
/**
 * The test control API (`control: true` only), under `/__control/`: POST notes (seed), POST faults,
 * GET requests?user= (the request log). The gateway secret and the Host rule are checked before any
 * of it is reached (server.mjs).
 */
import { NOT_FOUND_BODY, readJsonBody, send, sendError, sendMethodNotAllowed } from './http.mjs';
import { validateFault } from './faults.mjs';
import { isPlainObject } from './values.mjs';

/**
 * @typedef {import('node:http').IncomingMessage} IncomingMessage
 * @typedef {import('node:http').ServerResponse} ServerResponse
 * @typedef {import('./store.mjs').CanisterStore} CanisterStore
 * @typedef {import('./store.mjs').StoredNote} StoredNote
 * @typedef {{ user: string, vault: string, input: Record<string, unknown> }} ControlInput
 */

const MAX_CONTROL_BODY_BYTES = 64 * 1024 * 1024;

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
 * GET /__control/requests?user=<id>
 * @param {CanisterStore} store
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @param {string} query
 */
function answerRequestLog(store, req, res, query) {
  if (req.method !== 'GET') {
    sendMethodNotAllowed(res, 'GET');
    return;
  }
  const user = new URLSearchParams(query).get('user');
  if (user === null) sendError(res, 400, 'user query parameter is required', 'BAD_REQUEST');
  else send(res, 200, JSON.stringify(store.requestsOf(user)));
}

/**
 * The JSON object of a control POST with its user and vault (default `default`); null when it is
 * refused, the 400 or 413 already sent.
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @returns {Promise<ControlInput | null>}
 */
async function readControlInput(req, res) {
  const parsed = await readJsonBody(req, MAX_CONTROL_BODY_BYTES);
  if (!parsed.ok) {
    sendError(res, parsed.status, parsed.error, 'BAD_REQUEST');
    return null;
  }
  const input = parsed.value;
  if (!isPlainObject(input)) {
    sendError(res, 400, 'Body must be a JSON object', 'BAD_REQUEST');
    return null;
  }
  const user = input.user === undefined ? 'default' : input.user;
  const vault = input.vault === undefined ? 'default' : input.vault;
  if (typeof user !== 'string' || typeof vault !== 'string') {
    sendError(res, 400, 'user and vault must be strings', 'BAD_REQUEST');
    return null;
  }
  return { user, vault, input };
}

/**
 * POST /__control/notes: all notes are checked before any is stored.
 * @param {CanisterStore} store
 * @param {ControlInput} control
 * @param {ServerResponse} res
 */
function seedNotes(store, { user, vault, input }, res) {
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
  for (const note of accepted) store.putNote(user, vault, note);
  send(res, 200, JSON.stringify({ ok: true, seeded: accepted.length }));
}

/**
 * POST /__control/faults
 * @param {CanisterStore} store
 * @param {ControlInput} control
 * @param {ServerResponse} res
 */
function storeFault(store, { user, vault, input }, res) {
  if (typeof input.path !== 'string') {
    sendError(res, 400, 'path must be a string', 'BAD_REQUEST');
    return;
  }
  const result = validateFault(input.fault);
  if (!result.ok) {
    sendError(res, 400, result.error, 'BAD_REQUEST');
    return;
  }
  store.setFault(user, vault, input.path, result.fault);
  send(res, 200, JSON.stringify({ ok: true }));
}

/**
 * @param {CanisterStore} store
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @param {string} route the path after `/__control/`
 * @param {string} query
 */
export async function handleControl(store, req, res, route, query) {
  if (route === 'requests') {
    answerRequestLog(store, req, res, query);
    return;
  }
  if (route !== 'notes' && route !== 'faults') {
    send(res, 404, NOT_FOUND_BODY);
    return;
  }
  if (req.method !== 'POST') {
    sendMethodNotAllowed(res, 'POST');
    return;
  }
  const control = await readControlInput(req, res);
  if (control === null) return;
  if (route === 'notes') seedNotes(store, control, res);
  else storeFault(store, control, res);
}
