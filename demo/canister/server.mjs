// @ts-check
/**
 * The demo canister's HTTP server: the Host rule, the request log, fail-closed gateway auth, the note
 * read route and the control API, on a loopback address; close() ends every open connection.
 *
 * Order of checks for every request: Host (421, nothing logged), then the request log (control
 * only), OPTIONS and /health (no auth), X-Gateway-Auth (403), then the routes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { isAddressedTo, listen, ownHostValues, urlHost } from '../lib/loopback.mjs';
import { handleControl } from './control.mjs';
import { Timers, applyFault } from './faults.mjs';
import { AUTH_REQUIRED_BODY, MISDIRECTED_BODY, NOT_FOUND_BODY, noteDocument, send, sendError, sendMethodNotAllowed } from './http.mjs';
import { sanitizeVaultId, userIdFrom } from './store.mjs';

/**
 * @typedef {import('node:http').IncomingMessage} IncomingMessage
 * @typedef {import('node:http').ServerResponse} ServerResponse
 * @typedef {import('./store.mjs').CanisterStore} CanisterStore
 *
 * @typedef {object} Canister what every request is answered from
 * @property {CanisterStore} store
 * @property {(provided: string | string[] | undefined) => boolean} isAuthorized
 * @property {boolean} control
 * @property {Timers} timers
 * @property {ReadonlySet<string>} hosts the Host values served (ownHostValues); empty until listening
 */

const NOTES_PREFIX = '/api/v1/notes/';
const NOT_NOTE_REMAINDERS = new Set(['batch', 'delete-by-prefix']);
const CONTROL_PREFIX = '/__control/';

/**
 * @param {string} value
 * @returns {Buffer}
 */
function sha256(value) {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The X-Gateway-Auth check, in constant time. Fail-closed: with no configured secret nothing is
 * authorized.
 * @param {string | undefined} secret
 * @returns {(provided: string | string[] | undefined) => boolean}
 */
function gatewayCheck(secret) {
  if (typeof secret !== 'string' || secret === '') return () => false;
  const digest = sha256(secret);
  return (provided) => typeof provided === 'string' && timingSafeEqual(sha256(provided), digest);
}

/**
 * Path and query of a request target.
 * @param {string} target
 */
function splitTarget(target) {
  const queryStart = target.indexOf('?');
  return queryStart === -1
    ? { pathname: target, query: '' }
    : { pathname: target.slice(0, queryStart), query: target.slice(queryStart + 1) };
}

/**
 * The stored paths a note remainder may mean: percent-decoded once (the raw text when decoding
 * fails), then the raw remainder, each with one trailing `/` removed.
 * @param {string} remainder
 */
function candidatePaths(remainder) {
  let decoded;
  try {
    decoded = decodeURIComponent(remainder);
  } catch {
    decoded = remainder;
  }
  const stripSlash = (/** @type {string} */ s) => (s.endsWith('/') ? s.slice(0, -1) : s);
  return [stripSlash(decoded), stripSlash(remainder)];
}

/**
 * GET /api/v1/notes/<remainder>, authenticated.
 * @param {Canister} canister
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @param {string} remainder
 */
function answerNote(canister, req, res, remainder) {
  if (NOT_NOTE_REMAINDERS.has(remainder)) {
    send(res, 404, NOT_FOUND_BODY);
    return;
  }
  if (req.method !== 'GET') {
    sendMethodNotAllowed(res, 'GET');
    return;
  }
  const user = userIdFrom(req.headers['x-user-id']);
  const vault = sanitizeVaultId(req.headers['x-vault-id']);
  const { path, note, fault } = canister.store.lookup(user, vault, candidatePaths(remainder));
  if (fault) applyFault({ req, res, note, path, timers: canister.timers }, fault);
  else if (note) send(res, 200, noteDocument(note, path));
  else send(res, 404, NOT_FOUND_BODY);
}

/**
 * With the control API, every request carrying X-User-Id goes to that user's log.
 * @param {Canister} canister
 * @param {IncomingMessage} req
 */
function logRequest(canister, req) {
  const userHeader = req.headers['x-user-id'];
  if (!canister.control || userHeader === undefined) return;
  canister.store.recordRequest(userIdFrom(userHeader), { method: req.method ?? '', url: req.url ?? '/', headers: { ...req.headers } });
}

/**
 * Answers the requests that need no gateway secret; false for every other request.
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @param {string} pathname
 */
function answerOpenRoutes(req, res, pathname) {
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { Allow: 'GET, OPTIONS' });
    res.end();
    return true;
  }
  if (pathname !== '/health') return false;
  if (req.method === 'GET' || req.method === 'HEAD') send(res, 200, JSON.stringify({ ok: true }));
  else sendMethodNotAllowed(res, 'GET');
  return true;
}

/**
 * @param {Canister} canister
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
async function handle(canister, req, res) {
  if (!isAddressedTo(req, canister.hosts)) {
    send(res, 421, MISDIRECTED_BODY, { Connection: 'close' });
    return;
  }
  const { pathname, query } = splitTarget(req.url ?? '/');
  logRequest(canister, req);
  if (answerOpenRoutes(req, res, pathname)) return;
  if (!canister.isAuthorized(req.headers['x-gateway-auth'])) send(res, 403, AUTH_REQUIRED_BODY);
  else if (pathname.startsWith(NOTES_PREFIX)) answerNote(canister, req, res, pathname.slice(NOTES_PREFIX.length));
  else if (canister.control && pathname.startsWith(CONTROL_PREFIX)) await handleControl(canister.store, req, res, pathname.slice(CONTROL_PREFIX.length), query);
  else send(res, 404, NOT_FOUND_BODY);
}

/**
 * The node:http server for a canister, keeping connections open longer than any client pools them
 * and tracking its sockets so that close() can end hung responses too.
 * @param {Canister} canister
 * @param {Set<import('node:net').Socket>} sockets
 */
function createCanisterServer(canister, sockets) {
  const server = createServer((req, res) => {
    handle(canister, req, res).catch(() => {
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
  return server;
}

/**
 * Starts serving `store` on a loopback host:port.
 * @param {{ host: string, port: number, store: CanisterStore, gatewaySecret: string | undefined, control: boolean }} options
 * @returns {Promise<{ url: string, port: number, close(): Promise<void> }>}
 */
export async function startCanisterServer({ host, port, store, gatewaySecret, control }) {
  /** @type {Canister} */
  const canister = { store, isAuthorized: gatewayCheck(gatewaySecret), control, timers: new Timers(), hosts: new Set() };
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  const server = createCanisterServer(canister, sockets);
  const bound = await listen(server, port, host);
  canister.hosts = ownHostValues(bound);
  let closed = false;
  return {
    url: `http://${urlHost(host)}:${bound.port}`,
    port: bound.port,
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      canister.timers.clear();
      return new Promise((resolve) => {
        server.close(() => resolve(undefined));
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
    },
  };
}
