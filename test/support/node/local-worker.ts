// The e2e tests' local servers: a free loopback port, and the Worker from ./wrangler.toml under
// wrangler's own dev runtime (workerd), local only, no watcher, no inspector, offline and silent.
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const LOOPBACK = '127.0.0.1';

/** A free loopback port (bound and released), for a server whose URL must be known before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, LOOPBACK, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * workerd's report that a client closed its connection before an answer was fully written (a test's
 * browser or SDK client hanging up): the write fails with a broken pipe, or with a reset when the
 * peer's socket had unread data. The peer's doing, not the Worker's. Only this exact line is
 * dropped; every other workerd or wrangler error still prints.
 */
export const CLIENT_HUNG_UP =
  /kj::getCaughtExceptionAsKj\(\) = kj\/async-io-unix\.c\+\+:\d+: disconnected: ::write\(fd, buffer\.begin\(\), buffer\.size\(\)\): (?:Broken pipe|Connection reset by peer)/;

/**
 * wrangler's note at exit that it kept a debug log, which it prints once it has logged any error:
 * dropped only when every error it would follow was a dropped CLIENT_HUNG_UP.
 */
export const DEBUG_LOG_KEPT = /^\u{1FAB5} {2}Logs were written to "/u;

/** Decides which of wrangler's console lines print, in the order it writes them. */
export class HangUpFilter {
  private errorsPrinted = 0;

  keepError(args: unknown[]): boolean {
    if (args.some((arg) => typeof arg === 'string' && CLIENT_HUNG_UP.test(arg))) return false;
    this.errorsPrinted += 1;
    return true;
  }

  keepWarning(args: unknown[]): boolean {
    return this.errorsPrinted > 0 || !args.some((arg) => typeof arg === 'string' && DEBUG_LOG_KEPT.test(arg));
  }
}

let hangUpFilterInstalled = false;

/** Drops CLIENT_HUNG_UP reports, and the debug-log note that only they would cause, from this process's console, once. */
function dropClientHangUps(): void {
  if (hangUpFilterInstalled) return;
  hangUpFilterInstalled = true;
  const filter = new HangUpFilter();
  const [error, warn] = [console.error.bind(console), console.warn.bind(console)];
  console.error = (...args: unknown[]) => void (filter.keepError(args) && error(...args));
  console.warn = (...args: unknown[]) => void (filter.keepWarning(args) && warn(...args));
}

export type WranglerWorker = Awaited<ReturnType<(typeof import('wrangler'))['unstable_startWorker']>>;

export interface LocalWorkerOptions {
  port: number;
  /** A wrangler.toml environment (`[env.<name>]`); the top level when absent. */
  env?: string;
  vars: Record<string, string>;
  secrets: Record<string, string>;
}

/** Starts the Worker and resolves once it is ready (a broken bundle or config rejects here, once). */
export async function startLocalWorker({ port, env, vars, secrets }: LocalWorkerOptions): Promise<WranglerWorker> {
  // Offline and silent: no metrics, no Request.cf lookup at workers.cloudflare.com.
  process.env.WRANGLER_SEND_METRICS = 'false';
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
  dropClientHangUps();
  const { unstable_startWorker } = await import('wrangler');
  const worker = await unstable_startWorker({
    config: path.join(repoRoot, 'wrangler.toml'),
    ...(env ? { env } : {}),
    envFiles: [],
    sendMetrics: false,
    bindings: {
      ...Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: 'plain_text' as const, value }])),
      ...Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, { type: 'secret_text' as const, value }])),
    },
    dev: {
      server: { hostname: LOOPBACK, port },
      inspector: false,
      remote: false,
      watch: false,
      persist: false,
      liveReload: false,
      logLevel: 'warn',
    },
  });
  try {
    await worker.ready;
  } catch (error) {
    await worker.dispose().catch(() => {});
    throw error;
  }
  return worker;
}
