// vitest globalSetup of the `e2e` project (runs in Node): the real Worker served over loopback
// HTTP by wrangler's own dev runtime (workerd), wired to the demo canister and the demo vault,
// plus two static page servers for the browser test, one whose origin is in CORS_ORIGINS and one
// whose origin is not. Everything is offline, needs no Cloudflare login, and is torn down after
// the run.
//
// The Worker's whole configuration is pinned here (every name the Worker reads, empty where unused),
// so a developer's local .dev.vars or .env cannot change what the e2e tests see.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startDemoCanister, type DemoCanister } from '../../../demo/canister.mjs';
import { startExplorer } from '../../../demo/explorer/server.mjs';
import { startAuthServer } from '../../../demo/auth-server.mjs';
import { mintViewerToken } from '../../../scripts/token.mjs';
import { freePort, startLocalWorker } from './local-worker';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the demo canister, without a trailing slash. */
    canisterUrl: string;
    /** The canister's X-Gateway-Auth secret for this test run. */
    canisterSecret: string;
    /** Base URL of the Worker under test (wrangler dev runtime), without a trailing slash. */
    workerUrl: string;
    /** The Worker's SESSION_SECRET: HS256 key for test tokens. */
    sessionSecret: string;
    /** Origin of the page server that is listed in the Worker's CORS_ORIGINS. */
    allowedPageOrigin: string;
    /** Origin of a second page server (same files) that is NOT listed in CORS_ORIGINS. */
    refusedPageOrigin: string;
    /** The explorer page server of `npm start` (demo/explorer/server.mjs), listed in CORS_ORIGINS. */
    explorerUrl: string;
    /** The local OAuth authorization server (demo/auth-server.mjs), approving the demo user automatically. */
    authServerUrl: string;
    /** An access token from that server for `<workerUrl>/mcp` that expired ten minutes ago. */
    expiredAccessToken: string;
  }
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURES_DIR = path.join(repoRoot, 'test', 'e2e', 'fixtures');
const LOOPBACK = '127.0.0.1';
/** Only these fixture files are served; anything else is a 404, so the page server serves no directory listing or traversal. */
const SERVED_PAGES = new Set(['section-source.html']);

/**
 * Serves the fixture pages named in SERVED_PAGES as text/html on a random loopback port.
 * The pages get no CSP of their own on purpose: the browser test must show that escaping
 * (textContent), not a header, is what keeps hostile heading text inert.
 */
async function startPageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    // Served names are plain ASCII, so the raw (undecoded) path is compared as is.
    const name = new URL(request.url ?? '/', 'http://page.invalid').pathname.replace(/^\/+/, '');
    if (request.method !== 'GET' || !SERVED_PAGES.has(name)) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    readFile(path.join(FIXTURES_DIR, name)).then(
      (html) => {
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(html);
      },
      () => {
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('cannot read page');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { origin: `http://${LOOPBACK}:${port}`, server };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const canisterSecret = randomBytes(32).toString('hex');
  const sessionSecret = `e2e-session-secret-${randomBytes(24).toString('hex')}`;
  const cleanups: Array<() => Promise<void>> = [];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };

  try {
    const canister: DemoCanister = await startDemoCanister({
      control: true,
      gatewaySecret: canisterSecret,
      vaultDir: path.join(repoRoot, 'demo', 'vault'),
    });
    cleanups.push(() => canister.close());

    const allowedPage = await startPageServer();
    cleanups.push(() => closeServer(allowedPage.server));
    const refusedPage = await startPageServer();
    cleanups.push(() => closeServer(refusedPage.server));

    // The explorer of `npm start`, with a viewer token for the demo user. The Worker URL is known
    // only once the Worker runs, and the Worker's CORS_ORIGINS needs the explorer origin first, so
    // the explorer reads the URL lazily through this holder.
    const workerUrlHolder = { url: '' };
    const explorerToken = await mintViewerToken('demo', 3600, sessionSecret);
    const explorer = await startExplorer({
      workerUrl: () => workerUrlHolder.url,
      token: explorerToken,
      listNotes: () => canister.listNotes('demo', 'default'),
      vaultLabel: 'e2e demo vault',
    });
    cleanups.push(() => explorer.close());

    // Production rules need the public origin before the Worker starts; the authorization server
    // names the same origin as the only one it issues tokens for.
    const workerPort = await freePort();
    const publicOrigin = `http://${LOOPBACK}:${workerPort}`;
    const authServer = await startAuthServer({ resourceOrigin: publicOrigin, autoApprove: true });
    cleanups.push(() => authServer.close());

    const worker = await startLocalWorker({
      port: workerPort,
      // wrangler.toml's load environment: its only difference that survives the vars below is the
      // lifted per-user limits. Every e2e client reads as user `demo`, together well over 60 a
      // minute; the limiter itself is tested in workerd (test/worker/rate-limit.test.ts).
      env: 'load',
      vars: {
        CANISTER_URL: canister.url,
        ENVIRONMENT: 'production',
        PUBLIC_ORIGIN: publicOrigin,
        CORS_ORIGINS: `${allowedPage.origin},${explorer.url}`,
        CANISTER_TIMEOUT_MS: '5000',
        JWT_JWKS_URL: authServer.jwksUrl,
        JWT_ISSUER: '',
        JWT_AUDIENCE: '',
        OAUTH_AUTHORIZATION_SERVER: authServer.issuer,
        LEGACY_MCP_TOKENS_WITHOUT_AUDIENCE: 'false',
        SCOOLING_SMOKE_ENABLED: 'false',
      },
      secrets: {
        SESSION_SECRET: sessionSecret,
        CANISTER_AUTH_SECRET: canisterSecret,
        HUB_JWT_SECRET: '',
        SESSION_SECRET_PREVIOUS: '',
        SCOOLING_SMOKE_TOKEN: '',
      },
    });
    cleanups.push(() => worker.dispose());
    const workerUrl = (await worker.url).origin;
    if (workerUrl !== publicOrigin) throw new Error(`e2e Worker listens on ${workerUrl}, not its PUBLIC_ORIGIN ${publicOrigin}`);
    workerUrlHolder.url = workerUrl;

    // The Worker must answer before any test runs; a broken bundle or config fails here, once.
    const health = await fetch(`${workerUrl}/health`);
    if (health.status !== 200) throw new Error(`e2e Worker at ${workerUrl} answered /health with ${health.status}`);
    await health.body?.cancel();

    project.provide('canisterUrl', canister.url);
    project.provide('canisterSecret', canisterSecret);
    project.provide('workerUrl', workerUrl);
    project.provide('sessionSecret', sessionSecret);
    project.provide('allowedPageOrigin', allowedPage.origin);
    project.provide('refusedPageOrigin', refusedPage.origin);
    project.provide('explorerUrl', explorer.url);
    project.provide('authServerUrl', authServer.issuer);
    project.provide('expiredAccessToken', await authServer.signAccessToken({ resource: `${workerUrl}/mcp`, expiresInSeconds: -600 }));
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
