#!/usr/bin/env node
// @ts-check
/**
 * A minimal notes store: what the Worker reads notes from (CANISTER_URL), serving the `*.md` files
 * of one folder. It answers the one request of the store contract (docs/STORE.md) and nothing
 * else, with Node alone:
 *
 *   GET /api/v1/notes/<encodeURIComponent(path)>
 *     200 {"path": <the path asked for>, "frontmatter": <JSON text>, "body": <Markdown>}
 *     404 {"error":"Not found","code":"NOT_FOUND"}        no such note (or a path it will not serve)
 *     403 {"error":"Gateway authentication required",...}  X-Gateway-Auth missing or wrong
 *
 *   node examples/notes-store.mjs ~/notes                 # http://127.0.0.1:8792
 *   node examples/notes-store.mjs ~/notes --port 9000
 *   npm start -- --canister-url http://127.0.0.1:8792     # the local stack reads from it
 *
 * With CANISTER_AUTH_SECRET set in its environment it refuses every request whose X-Gateway-Auth
 * is not that value (npm start sends the published dev value, scripts/dev-config.mjs); unset, it
 * refuses nothing, so keep it on loopback (the default host).
 *
 * What a real store does that this one does not: it keeps each user's notes apart by X-User-Id and
 * X-Vault-Id (this one serves one folder to everyone), always requires X-Gateway-Auth, stores
 * frontmatter as the Hub does (this one reads only flat `key: value` lines and lists, the shapes
 * the facets read), and never logs a note's text or the X-Gateway-Auth value.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** The Worker abandons a note answer past 8 MiB (422 NOTE_TOO_LARGE); a file this size is not read. */
const MAX_NOTE_BYTES = 8 * 1024 * 1024;
const NOTES_PREFIX = '/api/v1/notes/';
/** A leading `---` block, up to the closing `---` line. */
const FRONTMATTER_BLOCK = /^---\r?\n(?:([\s\S]*?)\r?\n)?---(?:\r?\n|$)/;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { port: { type: 'string', default: '8792' }, host: { type: 'string', default: '127.0.0.1' } },
});
if (positionals.length !== 1 || !/^\d{1,5}$/.test(values.port ?? '')) {
  process.stderr.write('Usage: node examples/notes-store.mjs <folder> [--port 8792] [--host 127.0.0.1]\n');
  process.exit(2);
}
const root = await realpath(path.resolve(positionals[0])).catch(() => null);
if (root === null || !(await stat(root)).isDirectory()) {
  process.stderr.write(`notes-store: ${positionals[0]} is not a folder\n`);
  process.exit(2);
}
const gatewaySecret = process.env.CANISTER_AUTH_SECRET?.trim() ? Buffer.from(process.env.CANISTER_AUTH_SECRET) : null;

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** @param {string | string[] | undefined} header */
function gatewayAllowed(header) {
  if (gatewaySecret === null) return true;
  const given = Buffer.from(typeof header === 'string' ? header : '');
  return given.length === gatewaySecret.length && timingSafeEqual(given, gatewaySecret);
}

/**
 * The file of a note path inside the folder, or null: a `.md` path of plain `/`-separated names
 * (no empty, `.` or `..` segment, no hidden file or folder), whose real location, links resolved,
 * is still inside the folder.
 * @param {string} notePath
 */
async function noteFile(notePath) {
  const segments = notePath.split('/');
  if (!notePath.endsWith('.md') || /[\\\0]/.test(notePath) || segments.some((name) => name === '' || name.startsWith('.'))) return null;
  try {
    const file = await realpath(path.join(root, ...segments));
    return file.startsWith(`${root}${path.sep}`) && (await stat(file)).isFile() ? file : null;
  } catch {
    return null;
  }
}

/**
 * The frontmatter the facets read, from the YAML subset most notes use: `key: value`,
 * `key: [a, b]`, and `key:` followed by `- item` lines. Values are kept as text.
 * @param {string} yaml
 */
function readFrontmatter(yaml) {
  /** @type {Record<string, string | string[]>} */
  const data = {};
  /** @type {string[] | null} */
  let list = null;
  const unquote = (/** @type {string} */ text) => text.trim().replace(/^(['"])(.*)\1$/, '$2');
  for (const line of yaml.split(/\r?\n/)) {
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && list) {
      list.push(unquote(item[1]));
      continue;
    }
    const entry = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line);
    list = null;
    if (!entry) continue;
    const [, key, value] = entry;
    if (value === '') data[key] = list = [];
    else if (/^\[.*\]$/.test(value)) data[key] = value.slice(1, -1).split(',').map(unquote).filter(Boolean);
    else data[key] = unquote(value);
  }
  return data;
}

/** @param {string} text a note file's content */
function storedForm(text) {
  const block = FRONTMATTER_BLOCK.exec(text);
  if (!block) return { frontmatter: '{}', body: text };
  return { frontmatter: JSON.stringify(readFrontmatter(block[1] ?? '')), body: text.slice(block[0].length) };
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://store.invalid');
  if (req.method !== 'GET' || !url.pathname.startsWith(NOTES_PREFIX)) return sendJson(res, 404, { error: 'Not found', code: 'NOT_FOUND' });
  if (!gatewayAllowed(req.headers['x-gateway-auth'])) {
    return sendJson(res, 403, { error: 'Gateway authentication required', code: 'GATEWAY_AUTH_REQUIRED' });
  }
  let notePath;
  try {
    notePath = decodeURIComponent(url.pathname.slice(NOTES_PREFIX.length));
  } catch {
    return sendJson(res, 404, { error: 'Not found', code: 'NOT_FOUND' });
  }
  const file = await noteFile(notePath);
  if (file === null) return sendJson(res, 404, { error: 'Not found', code: 'NOT_FOUND' });
  if ((await stat(file)).size > MAX_NOTE_BYTES) return sendJson(res, 413, { error: 'Note too large', code: 'NOTE_TOO_LARGE' });
  const { frontmatter, body } = storedForm(await readFile(file, 'utf8'));
  // `path` is the path asked for, exactly: the Worker treats an answer for another path as no note.
  return sendJson(res, 200, { path: notePath, frontmatter, body });
});

server.listen(Number(values.port), values.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : values.port;
  process.stdout.write(
    `notes-store: serving the .md files under ${root} at http://${values.host}:${port} ` +
      `(${gatewaySecret ? 'X-Gateway-Auth required' : 'no X-Gateway-Auth check: set CANISTER_AUTH_SECRET to require it'})\n`,
  );
});
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(signal, () => server.close(() => process.exit(0)));
