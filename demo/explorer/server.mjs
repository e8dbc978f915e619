// @ts-check
/**
 * The explorer page's own tiny static server, started by `npm start` on a loopback port next to
 * the Worker (never served by the Worker itself). It serves exactly these resources:
 *
 *   GET /               index.html
 *   GET /render.js      the structure renderer (shared with the MCP Apps view)
 *   GET /render.css     the renderer's style (shared with the MCP Apps view)
 *   GET /explorer.js    the page script
 *   GET /explorer.css   the page style
 *   GET /session.json   { workerUrl, token, vaultLabel, notes: [paths] } for the page
 *
 * The page then calls the Worker's REST routes cross-origin with that bearer token, as the Hub
 * frontend does. The note list comes from the demo canister in-process (listNotes); the Worker
 * still reads one note per request and has no listing route.
 *
 * Guards: a loopback address only; only GET/HEAD; a request not addressed to this server's own
 * name and port is refused with 421 (demo/lib/loopback.mjs: DNS rebinding must not hand the token
 * to another site); no CORS headers, so other origins cannot read /session.json; a strict CSP
 * allows scripts and styles from this origin only and network calls only to the Worker.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAddressedTo, isLoopbackHost, listen, ownHostValues, urlHost } from '../lib/loopback.mjs';

const PAGE_DIR = path.dirname(fileURLToPath(import.meta.url));
const STATIC_FILES = /** @type {const} */ ({
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/render.js': { file: 'render.js', type: 'text/javascript; charset=utf-8' },
  '/render.css': { file: 'render.css', type: 'text/css; charset=utf-8' },
  '/explorer.js': { file: 'explorer.js', type: 'text/javascript; charset=utf-8' },
  '/explorer.css': { file: 'explorer.css', type: 'text/css; charset=utf-8' },
});

/**
 * The page's Content-Security-Policy: nothing but this origin's script and style, and fetches
 * to this origin (session.json) and to the Worker.
 * @param {string} workerOrigin
 */
export function explorerCsp(workerOrigin) {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ${workerOrigin}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * @typedef {object} ExplorerOptions
 * @property {string} [host] loopback address to listen on (default 127.0.0.1)
 * @property {number} [port] 0 picks a free port
 * @property {string | (() => string)} workerUrl Worker base URL the page calls (a function when it is
 *   known only after the explorer starts, e.g. because the Worker's CORS_ORIGINS needs this origin)
 * @property {string} token bearer token the page sends (a local dev token)
 * @property {() => string[]} listNotes vault paths offered in the note list
 * @property {string} [vaultLabel] shown in the page header
 */

/**
 * Starts the explorer server. A `host` that is not a loopback address is refused (TypeError)
 * before anything listens: the page hands out a bearer token.
 * @param {ExplorerOptions} options
 * @returns {Promise<{ url: string, port: number, close(): Promise<void> }>}
 */
export async function startExplorer({ host = '127.0.0.1', port = 0, workerUrl, token, listNotes, vaultLabel = '' }) {
  if (!isLoopbackHost(host)) throw new TypeError('explorer: host must be a loopback address (127.0.0.1, ::1 or localhost)');
  const workerOrigin = () => new URL(typeof workerUrl === 'function' ? workerUrl() : workerUrl).origin;
  /** @type {ReadonlySet<string>} */
  let allowedHosts = new Set();

  const baseHeaders = {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };

  /**
   * @param {import('node:http').ServerResponse} res
   * @param {number} status
   * @param {string} type
   * @param {string | Buffer} body
   * @param {boolean} head
   */
  function send(res, status, type, body, head) {
    const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    res.writeHead(status, {
      ...baseHeaders,
      'Content-Security-Policy': explorerCsp(workerOrigin()),
      'Content-Type': type,
      'Content-Length': String(payload.length),
    });
    res.end(head ? undefined : payload);
  }

  const server = createServer((req, res) => {
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.setHeader('Allow', 'GET, HEAD');
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', false);
      return;
    }
    if (!isAddressedTo(req, allowedHosts)) {
      send(res, 421, 'text/plain; charset=utf-8', 'unexpected Host header\n', head);
      return;
    }
    const pathname = new URL(req.url ?? '/', 'http://explorer.invalid').pathname;
    if (pathname === '/session.json') {
      const session = { workerUrl: workerOrigin(), token, vaultLabel, notes: listNotes() };
      send(res, 200, 'application/json; charset=utf-8', JSON.stringify(session), head);
      return;
    }
    const entry = Object.prototype.hasOwnProperty.call(STATIC_FILES, pathname)
      ? STATIC_FILES[/** @type {keyof typeof STATIC_FILES} */ (pathname)]
      : undefined;
    if (!entry) {
      send(res, 404, 'text/plain; charset=utf-8', 'not found\n', head);
      return;
    }
    readFile(path.join(PAGE_DIR, entry.file)).then(
      (content) => send(res, 200, entry.type, content, head),
      () => send(res, 500, 'text/plain; charset=utf-8', 'cannot read page file\n', head),
    );
  });

  const bound = await listen(server, port, host);
  allowedHosts = ownHostValues(bound);
  return {
    url: `http://${urlHost(host)}:${bound.port}`,
    port: bound.port,
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      });
    },
  };
}
