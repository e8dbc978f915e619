// The three local servers (demo canister, explorer page, authorization server) share one loopback
// rule (demo/lib/loopback.mjs): each listens on a loopback address only and serves only requests
// addressed to itself, so a DNS-rebinding page (a foreign name resolved to 127.0.0.1) reaches none.
// The canister's own suite covers the rule case by case; this drives the same cases at all three.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer } from '../../demo/auth-server.mjs';
import { startDemoCanister } from '../../demo/canister.mjs';
import { startExplorer } from '../../demo/explorer/server.mjs';
import { rawExchange } from '../support/node/raw-http';

const WORKER = 'http://127.0.0.1:9';

interface LocalServer {
  port: number;
  close(): Promise<unknown>;
}

interface ServerCase {
  name: string;
  /** A path that answers 200 without credentials when the request is addressed to the server. */
  path: string;
  start(host?: string): Promise<LocalServer>;
}

const SERVERS: ServerCase[] = [
  { name: 'demo canister', path: '/health', start: (host) => startDemoCanister({ gatewaySecret: 'loopback-test-secret', host }) },
  {
    name: 'explorer page',
    path: '/',
    start: (host) => startExplorer({ host, workerUrl: WORKER, token: 'not-a-token', listNotes: () => [] }),
  },
  { name: 'authorization server', path: '/.well-known/oauth-authorization-server', start: (host) => startAuthServer({ host, resourceOrigin: WORKER }) },
];

describe.each(SERVERS)('$name: loopback only', ({ path, start }) => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.close();
  });

  const get = (target: string, hostLines: string[]) =>
    rawExchange(server.port, `GET ${target} HTTP/1.1\r\n${hostLines.map((host) => `Host: ${host}\r\n`).join('')}Connection: close\r\n\r\n`);

  it('serves a request addressed to its own address or localhost, with its port, in any case', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LocalHost:${server.port}`]) {
      expect((await get(path, [host])).status, host).toBe(200);
    }
    // An absolute-form target naming the server passes the rule (past it, the canister routes on the raw target).
    const own = `127.0.0.1:${server.port}`;
    expect((await get(`http://${own}${path}`, [own])).status).not.toBe(421);
  });

  it('refuses with 421 a foreign name, another port, no port, userinfo, an empty Host and two Host headers', async () => {
    const own = `127.0.0.1:${server.port}`;
    const otherPort = server.port === 65535 ? server.port - 1 : server.port + 1;
    for (const hosts of [
      ['evil.example'],
      [`evil.example:${server.port}`],
      [`127.0.0.1.evil.example:${server.port}`],
      [`127.0.0.1:${otherPort}`],
      ['127.0.0.1'],
      [`user@${own}`],
      [''],
      [own, 'evil.example'],
      ['evil.example', own],
    ]) {
      expect((await get(path, hosts)).status, hosts.join(' + ')).toBe(421);
    }
  });

  it('refuses with 421 an absolute-form target that names another host, whatever the Host header says', async () => {
    const own = `127.0.0.1:${server.port}`;
    for (const target of [`http://evil.example${path}`, `http://user@${own}${path}`, `https://${own}${path}`]) {
      expect((await get(target, [own])).status, target).toBe(421);
    }
  });

  it.each(['0.0.0.0', '::', '192.0.2.1', 'example.com', '127.0.0.1.evil.example'])('refuses to listen on the non-loopback host %j', async (host) => {
    await expect(start(host)).rejects.toThrow(/loopback/);
  });
});
