// @ts-check
/**
 * A stand-in for the Knowtation Hub's hosted-context endpoint, answering
 * `GET /api/v1/hosted-context` as the Hub's bridge does (aaronrene/knowtation, hub/bridge/server.mjs
 * `app.get('/api/v1/hosted-context', requireBridgeAuth, ...)` with hub/lib/hosted-workspace-resolve.mjs),
 * for `npm start` and the tests. What it reproduces, from that code:
 *
 *  - requireBridgeAuth: `Authorization` must start with exactly `Bearer `, and the token must verify
 *    with the session secret (HS256/384/512, `exp` checked) and carry a `sub`; else 401
 *    `{"error":"Unauthorized","code":"UNAUTHORIZED"}`. The token's `type` is not read, so the
 *    Hub's session and `mcp_access` tokens both pass.
 *  - the vault: `X-Vault-Id` (default `default`), every character outside [A-Za-z0-9_-] made `_`,
 *    cut at 64 (sanitizeVaultId).
 *  - the effective canister user (resolveEffectiveCanisterUser): the workspace owner when one is set,
 *    the actor is not the owner and has a stored team role (admin, editor, viewer, evaluator) or is
 *    an env admin (`delegating: true`); otherwise the actor.
 *  - the allowlist (resolveAllowedVaultIdsForHostedContext): the actor's explicit access row when it
 *    has one, else `["default"]` when delegating, else every vault of the effective partition;
 *    intersected with that partition's vaults. A vault not on it is 403
 *    `{"error":"Access to this vault is not allowed.","code":"FORBIDDEN"}`.
 *  - the scope (getScopeForUserVaultFromScopeMap): the actor's `{projects, folders}` for the vault,
 *    null when it has neither, and null for an evaluator.
 *  - the role (effectiveRole): the stored team role, else `admin` for an env admin, else `member`.
 *  - the answer's fields, in the bridge's order.
 *
 * One bridge serves one workspace; this stand-in holds several (each test its own owner and
 * members), and an actor who is in none of them is answered as a solo user, as the bridge answers
 * a user outside its workspace. Loopback only. With `control: true`, a control API under
 * `/__control/` (guarded by `controlSecret` in X-Control-Secret) adds workspaces, injects faults
 * per actor and lists the requests each actor's token made.
 */
import { createServer } from 'node:http';
import { jwtVerify } from 'jose';
import { isAddressedTo, isLoopbackHost, listen, ownHostValues, urlHost } from './lib/loopback.mjs';

const TEAM_ROLES = new Set(['admin', 'editor', 'viewer', 'evaluator']);
const UNAUTHORIZED = { error: 'Unauthorized', code: 'UNAUTHORIZED' };
const VAULT_REFUSED = { error: 'Access to this vault is not allowed.', code: 'FORBIDDEN' };
const CONTROL_PREFIX = '/__control/';
const MAX_CONTROL_BODY_BYTES = 1024 * 1024;

/**
 * @typedef {object} Workspace one bridge's data: hub_workspace, hub_roles, hub_vault_access, hub_scope
 * @property {string | null} owner hub_workspace.owner_user_id
 * @property {Record<string, string>} [roles] hub_roles: sub -> admin | editor | viewer | evaluator
 * @property {string[]} [admins] HUB_ADMIN_USER_IDS
 * @property {Record<string, string[]>} [access] hub_vault_access: sub -> vault ids
 * @property {Record<string, Record<string, { projects?: string[], folders?: string[] }>>} [scope] hub_scope: sub -> vault -> rules
 * @property {Record<string, string[]>} [vaults] the canister's vault ids per partition user (default ["default"])
 * @property {Record<string, boolean>} [mayApprove] evaluator may-approve flags
 *
 * @typedef {object} Fault how an actor's requests are answered instead
 * @property {number} [status] answer this status with `body` (default `{"error":"Internal error","code":"INTERNAL_ERROR"}`)
 * @property {string} [body] a raw body for a 200 (or for `status`)
 * @property {number} [delayMs] wait this long before answering (the fault or the real answer)
 * @property {string} [location] answer 302 to this URL
 *
 * @typedef {object} RecordedCall
 * @property {string} vault the X-Vault-Id header as sent (or null)
 * @property {string | null} authorization the Authorization header as sent
 * @property {string[]} headerNames every header name sent, lower case
 */

/**
 * @param {string | undefined} raw
 */
export function sanitizeVaultId(raw) {
  return String(raw || 'default').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'default';
}

/**
 * The hosted context of `actor` for `vaultId` in `workspace`, or the bridge's refusal.
 * @param {Workspace} workspace
 * @param {string} actor
 * @param {string} vaultId
 * @returns {{ status: number, body: Record<string, unknown> }}
 */
export function hostedContext(workspace, actor, vaultId) {
  const roles = workspace.roles ?? {};
  const admins = new Set(workspace.admins ?? []);
  const owner = workspace.owner && workspace.owner.trim() ? workspace.owner.trim() : null;
  const stored = roles[actor];
  const delegating = owner !== null && actor !== owner && ((stored !== undefined && TEAM_ROLES.has(stored)) || admins.has(actor));
  const effective = delegating ? /** @type {string} */ (owner) : actor;
  const partitionVaults = workspace.vaults?.[effective]?.length ? /** @type {string[]} */ (workspace.vaults[effective]) : ['default'];
  const explicit = workspace.access?.[actor]?.length ? workspace.access[actor] : null;
  const allowedRaw = new Set(explicit ?? (delegating ? ['default'] : partitionVaults));
  const allowed = partitionVaults.filter((id) => allowedRaw.has(id));
  if (!allowed.includes(vaultId)) return { status: 403, body: VAULT_REFUSED };
  const role = stored !== undefined && TEAM_ROLES.has(stored) ? stored : admins.has(actor) ? 'admin' : 'member';
  const rules = workspace.scope?.[actor]?.[vaultId];
  const projects = Array.isArray(rules?.projects) ? rules.projects : [];
  const folders = Array.isArray(rules?.folders) ? rules.folders : [];
  const scope = role === 'evaluator' || (projects.length === 0 && folders.length === 0) ? null : { projects, folders };
  return {
    status: 200,
    body: {
      actor_sub: actor,
      workspace_owner_id: owner,
      effective_canister_user_id: effective,
      delegating,
      allowed_vault_ids: allowed,
      scope,
      role,
      may_approve_proposals: role === 'admin' || (role === 'evaluator' && workspace.mayApprove?.[actor] === true),
    },
  };
}

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

/**
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<unknown>}
 */
async function readJson(req) {
  const chunks = [];
  let total = 0;
  for await (const chunk of req) {
    total += chunk.length;
    if (total > MAX_CONTROL_BODY_BYTES) throw new Error('control body too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Starts the stand-in on a loopback address. `secret` is the Hub's session secret.
 * @param {{ host?: string, port?: number, secret: string, workspaces?: Workspace[], control?: boolean, controlSecret?: string }} options
 * @returns {Promise<{ url: string, contextUrl: string, port: number, close(): Promise<void> }>}
 */
export async function startHubContext({ host = '127.0.0.1', port = 0, secret, workspaces = [], control = false, controlSecret = '' }) {
  if (!isLoopbackHost(host)) throw new TypeError('hub stand-in: host must be a loopback address (127.0.0.1, ::1 or localhost)');
  if (control && controlSecret === '') throw new TypeError('hub stand-in: the control API needs a controlSecret');
  const key = new TextEncoder().encode(secret);
  const spaces = [...workspaces];
  /** @type {Map<string, Fault>} */
  const faults = new Map();
  /** @type {Map<string, RecordedCall[]>} */
  const calls = new Map();
  /** @type {Set<string>} */
  let hosts = new Set();
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  /** @type {Set<NodeJS.Timeout>} */
  const timers = new Set();

  /** @param {number} ms */
  const pause = (ms) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve(undefined);
      }, ms);
      timers.add(timer);
    });

  /** The workspace the actor belongs to (owner, team role or env admin), else a solo user's. @param {string} actor */
  const workspaceOf = (actor) =>
    spaces.find((space) => space.owner === actor || Object.hasOwn(space.roles ?? {}, actor) || (space.admins ?? []).includes(actor)) ?? {
      owner: null,
      vaults: Object.fromEntries(spaces.flatMap((space) => Object.entries(space.vaults ?? {})).filter(([user]) => user === actor)),
    };

  /** requireBridgeAuth: the sub of a token the session secret verifies, or null. @param {string | undefined} header */
  async function actorOf(header) {
    const token = header && header.startsWith('Bearer ') ? header.slice(7) : null;
    if (!token) return null;
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256', 'HS384', 'HS512'] });
      return typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : null;
    } catch {
      return null;
    }
  }

  /** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res @param {string} path */
  async function handleControl(req, res, path) {
    if (!control || req.headers['x-control-secret'] !== controlSecret) return sendJson(res, 404, { error: 'Not found' });
    const url = new URL(path, 'http://control');
    if (req.method === 'POST' && url.pathname === '/__control/workspaces') {
      spaces.push(/** @type {Workspace} */ (await readJson(req)));
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === 'POST' && url.pathname === '/__control/faults') {
      const { sub, fault } = /** @type {{ sub: string, fault: Fault | null }} */ (await readJson(req));
      if (fault === null) faults.delete(sub);
      else faults.set(sub, fault);
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === 'GET' && url.pathname === '/__control/calls') return sendJson(res, 200, calls.get(url.searchParams.get('sub') ?? '') ?? []);
    return sendJson(res, 404, { error: 'Not found' });
  }

  /** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
  async function handle(req, res) {
    if (!isAddressedTo(req, hosts)) return sendJson(res, 421, { error: 'Misdirected request' });
    const path = req.url ?? '/';
    if (path.startsWith(CONTROL_PREFIX)) return handleControl(req, res, path);
    if (req.method !== 'GET' || path.split('?')[0] !== '/api/v1/hosted-context') return sendJson(res, 404, { error: 'Not found', code: 'NOT_FOUND' });
    const actor = await actorOf(req.headers.authorization);
    if (actor === null) return sendJson(res, 401, UNAUTHORIZED);
    const vaultHeader = req.headers['x-vault-id'];
    const list = calls.get(actor) ?? [];
    list.push({
      vault: typeof vaultHeader === 'string' ? vaultHeader : null,
      authorization: req.headers.authorization ?? null,
      headerNames: Object.keys(req.headers),
    });
    calls.set(actor, list);
    const fault = faults.get(actor);
    if (fault?.delayMs) await pause(fault.delayMs);
    if (fault?.location) {
      res.writeHead(302, { Location: fault.location, 'Content-Length': 0 });
      return res.end();
    }
    if (fault?.status !== undefined || fault?.body !== undefined) {
      const body = fault.body ?? JSON.stringify({ error: 'Internal error', code: 'INTERNAL_ERROR' });
      res.writeHead(fault.status ?? 200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      return res.end(body);
    }
    const vaultId = sanitizeVaultId(typeof vaultHeader === 'string' ? vaultHeader : undefined);
    const answer = hostedContext(workspaceOf(actor), actor, vaultId);
    return sendJson(res, answer.status, answer.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal error', code: 'INTERNAL_ERROR' });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const address = await listen(server, port, host);
  hosts = ownHostValues(address);
  const url = `http://${urlHost(host)}:${address.port}`;
  return {
    url,
    contextUrl: `${url}/api/v1/hosted-context`,
    port: address.port,
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve(undefined));
      }),
  };
}
