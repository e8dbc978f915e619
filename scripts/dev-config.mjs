// @ts-check
/**
 * Local development constants shared by `npm start`, the token script and the tests.
 * None of these values is a secret: they are published in the repository so that a local
 * Worker, a local demo canister and locally minted tokens agree with each other. A deployed
 * Worker must never use them; `isDevSecret` lets tooling refuse them outside local use.
 */

/** HS256 key of the local Worker (SESSION_SECRET) and of tokens minted by scripts/token.mjs. */
export const DEV_SESSION_SECRET = 'knowtation-edge-local-dev-secret-not-for-production';

/** Shared secret between the local Worker (CANISTER_AUTH_SECRET) and the demo canister (X-Gateway-Auth). */
export const DEV_CANISTER_AUTH_SECRET = 'knowtation-edge-local-canister-auth-not-for-production';

/** Port of the demo canister started by `npm start`. */
export const DEV_CANISTER_PORT = 8788;

/** Port of `wrangler dev` started by `npm start`. */
export const WORKER_PORT = 8787;

/** Port of the explorer page served by `npm start` (demo/explorer/). */
export const DEV_EXPLORER_PORT = 8789;

/** Port of the local OAuth authorization server started by `npm start` (demo/auth-server.mjs). */
export const DEV_AUTH_PORT = 8790;

/** Port of the stand-in for the Hub's hosted-context endpoint started by `npm start` (demo/hub-context.mjs). */
export const DEV_HUB_PORT = 8791;

/** Canister partition the demo vault is loaded into, and the default token subject. */
export const DEMO_USER = 'demo';
export const DEMO_VAULT = 'default';

/** A member of the demo user's workspace, as the local Hub stand-in knows them: a viewer with a folder scope. */
export const DEMO_MEMBER = 'demo-member';

const DEV_SECRETS = new Set([DEV_SESSION_SECRET, DEV_CANISTER_AUTH_SECRET]);

/**
 * True only for the published development secrets above.
 * @param {unknown} secret
 * @returns {boolean}
 */
export function isDevSecret(secret) {
  return typeof secret === 'string' && DEV_SECRETS.has(secret);
}
