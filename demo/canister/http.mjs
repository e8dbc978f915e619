// @ts-check
/** The demo canister's answers: fixed JSON bodies, sending them, the note document, reading a JSON body. */

/**
 * @typedef {import('node:http').IncomingMessage} IncomingMessage
 * @typedef {import('node:http').ServerResponse} ServerResponse
 * @typedef {import('./store.mjs').StoredNote} StoredNote
 */

export const JSON_TYPE = 'application/json';
export const NOT_FOUND_BODY = JSON.stringify({ error: 'Not found', code: 'NOT_FOUND' });
export const AUTH_REQUIRED_BODY = JSON.stringify({ error: 'Gateway authentication required', code: 'GATEWAY_AUTH_REQUIRED' });
export const METHOD_NOT_ALLOWED_BODY = JSON.stringify({ error: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' });
/** The answer to a request for another Host (DNS rebinding); fixed, so it echoes nothing of the request. */
export const MISDIRECTED_BODY = JSON.stringify({ error: 'Misdirected request', code: 'MISDIRECTED_REQUEST' });

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {string} body
 * @param {Record<string, string>} [headers] added to (or replacing) Content-Type and Content-Length
 */
export function send(res, status, body, headers = {}) {
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
export function sendError(res, status, error, code) {
  send(res, status, JSON.stringify({ error, code }));
}

/**
 * @param {ServerResponse} res
 * @param {string} allow the one method the route takes
 */
export function sendMethodNotAllowed(res, allow) {
  send(res, 405, METHOD_NOT_ALLOWED_BODY, { Allow: allow });
}

/**
 * The 200 body for a note, or for a note that does not exist (body-producing faults still
 * deliver a valid note document for the requested path).
 * @param {StoredNote | undefined} note
 * @param {string} requestedPath
 * @returns {string}
 */
export function noteDocument(note, requestedPath) {
  if (note?.rawResponse !== undefined) return note.rawResponse;
  if (note) return JSON.stringify({ path: note.path, frontmatter: note.frontmatter, body: note.body });
  return JSON.stringify({ path: requestedPath, frontmatter: '{}', body: '' });
}

/**
 * Reads and parses a JSON request body of at most maxBytes.
 * @param {IncomingMessage} req
 * @param {number} maxBytes
 * @returns {Promise<{ ok: true, value: unknown } | { ok: false, status: number, error: string }>}
 */
export function readJsonBody(req, maxBytes) {
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > maxBytes) resolve({ ok: false, status: 413, error: 'Control request too large' });
      else resolve(parseJson(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', () => resolve({ ok: false, status: 400, error: 'Request aborted' }));
  });
}

/**
 * @param {string} text
 * @returns {{ ok: true, value: unknown } | { ok: false, status: number, error: string }}
 */
function parseJson(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, error: 'Invalid JSON' };
  }
}
