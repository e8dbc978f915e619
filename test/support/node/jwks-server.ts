// A JWK set stand-in on loopback for the Worker tests: one good set and the shapes a broken or
// hostile identity provider can answer with. Real HTTP, so the Worker's own bounded fetch is what
// is tested. Paths (a query is ignored, so `?<anything>` names a set the Worker has not cached yet):
// /good, /huge (a 6 MB set), /hang (no answer at all), /drip (headers, then one byte every 200 ms,
// forever), /not-a-set, /rotating/<id> (below) and /controlled/<id>, whose behaviour a test sets
// and whose fetches it counts (below).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

export type ControlledMode = 'healthy' | 'failing' | 'slow';

export interface JwksServer {
  url: string;
  /** The private half of the one key /good publishes (kid `jwks-test`), for signing test tokens. */
  privateJwk: JWK;
  close(): Promise<void>;
}

export async function startJwksServer(): Promise<JwksServer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'jwks-test', alg: 'ES256', use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid: 'jwks-test', alg: 'ES256' };
  const good = JSON.stringify({ keys: [publicJwk] });
  // A syntactically valid set of 6 MB: the real key followed by padding keys.
  const padding = JSON.stringify({ kty: 'oct', kid: 'pad', k: 'A'.repeat(4096) });
  const huge = `{"keys":[${JSON.stringify(publicJwk)}${`,${padding}`.repeat(Math.ceil((6 * 1024 * 1024) / padding.length))}]}`;
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const json = (response: ServerResponse, body: string) =>
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);

  // /rotating/<id> publishes the key until POST /rotating/<id>/retire, then an empty set.
  const retired = new Set<string>();
  // /controlled/<id> answers as its mode says: `healthy` (the good set, the default), `failing`
  // (500) or `slow` (the good set after ?delayMs=, default 5 s). PUT /controlled/<id>/mode/<mode>
  // sets it; GET /controlled/<id>/fetches answers {"fetches": n}, the GETs of the set so far.
  const controlled = new Map<string, { mode: ControlledMode; delayMs: number; fetches: number }>();
  const controlledSet = (id: string) => {
    if (!controlled.has(id)) controlled.set(id, { mode: 'healthy', delayMs: 0, fetches: 0 });
    return controlled.get(id)!;
  };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const rotating = /^\/rotating\/([\w-]+)(\/retire)?$/.exec(url.pathname);
    if (rotating) {
      const [, id, retire] = rotating as unknown as [string, string, string | undefined];
      if (retire && request.method === 'POST') retired.add(id);
      return json(response, retired.has(id) ? '{"keys":[]}' : good);
    }
    const control = /^\/controlled\/([\w-]+)(?:\/(mode\/(healthy|failing|slow)|fetches))?$/.exec(url.pathname);
    if (control) {
      const [, id, action, mode] = control as unknown as [string, string, string | undefined, ControlledMode | undefined];
      const set = controlledSet(id);
      if (mode && request.method === 'PUT') {
        set.mode = mode;
        set.delayMs = Number(url.searchParams.get('delayMs') ?? 5_000);
        return response.writeHead(204).end();
      }
      if (action === 'fetches') return json(response, JSON.stringify({ fetches: set.fetches }));
      if (action || request.method !== 'GET') return response.writeHead(405).end();
      set.fetches += 1;
      if (set.mode === 'failing') return response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"down"}');
      if (set.mode === 'healthy') return json(response, good);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!response.destroyed) json(response, good);
      }, set.delayMs);
      timers.add(timer);
      return;
    }
    switch (url.pathname) {
      case '/good':
        return json(response, good);
      case '/huge':
        return json(response, huge);
      case '/not-a-set':
        return json(response, '{"SENTINEL":1}');
      case '/hang':
        return; // never answered
      case '/drip': {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.write('{"keys":[');
        const timer = setInterval(() => response.write(' '), 200);
        timers.add(timer);
        response.once('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      default:
        response.writeHead(404).end();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    privateJwk,
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
