/**
 * `npm run check-hub -- --interactive`: a person's part of an authorization request. Prints the
 * authorization URL, listens on the redirect URI's loopback port, and hands back what the browser
 * brings there once the person has signed in and consented, as a native MCP client does (RFC 8252
 * section 7.3). Only an answer carrying the request's own state is taken; the page the browser is
 * shown echoes nothing of it.
 */
import { createServer, type Server } from 'node:http';
import type { SignIn } from './hub-check';
import { isLoopbackHost } from './hub-network';

const DONE_PAGE = '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>check-hub</title></head><body><p>check-hub has the answer. Return to the terminal.</p></body></html>\n';

export interface LoopbackSignInOptions {
  /** How long to wait for the browser. */
  waitMs: number;
  /** Where the instructions go (the report keeps stdout). */
  write: (text: string) => void;
}

export function loopbackSignIn({ waitMs, write }: LoopbackSignInOptions): SignIn {
  return async (authorizationUrl, redirectUri) => {
    const target = new URL(redirectUri);
    if (target.protocol !== 'http:' || !isLoopbackHost(target.hostname)) return { failure: 'the redirect URI is not an http loopback one to listen on' };
    const port = Number(target.port || 80);
    const expectedState = authorizationUrl.searchParams.get('state');
    let settle: (answer: URLSearchParams | { failure: string }) => void = () => {};
    const answered = new Promise<URLSearchParams | { failure: string }>((resolve) => (settle = resolve));
    const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      const url = URL.parse(req.url ?? '/', 'http://loopback.invalid');
      if (req.method !== 'GET' || !url || url.pathname !== target.pathname || url.searchParams.get('state') !== expectedState) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('not the answer check-hub waits for\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).end(DONE_PAGE);
      settle(url.searchParams);
    };
    // `localhost` may reach either loopback family in the browser: listen on both.
    const hosts = target.hostname === 'localhost' ? ['127.0.0.1', '::1'] : [target.hostname.replace(/^\[|\]$/g, '')];
    const servers: Server[] = [];
    for (const host of hosts) {
      const server = createServer(handler);
      const listening = await new Promise<string | null>((resolve) => {
        server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        server.listen(port, host, () => resolve(null));
      });
      if (listening === null) servers.push(server);
      else if (listening === 'EADDRINUSE') return closeAll(servers, { failure: `port ${port} is busy: pass another --redirect-uri` });
    }
    if (servers.length === 0) return { failure: `cannot listen on ${target.host}` };
    write(
      `check-hub: open this URL in a browser, sign in and approve; waiting up to ${Math.round(waitMs / 1000)} s for the redirect to ${target.origin}${target.pathname}\n` +
        `${authorizationUrl.href}\n`,
    );
    const timer = setTimeout(() => settle({ failure: `no redirect arrived within ${Math.round(waitMs / 1000)} s` }), waitMs);
    const answer = await answered;
    clearTimeout(timer);
    return closeAll(servers, answer);
  };
}

async function closeAll<T>(servers: Server[], value: T): Promise<T> {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
  return value;
}
