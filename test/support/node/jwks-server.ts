// A JWK set stand-in on loopback for the Worker tests: one good set and the shapes a broken or
// hostile identity provider can answer with. Real HTTP, so the Worker's own bounded fetch is what
// is tested. Paths: /good, /huge (a 6 MB set), /hang (no answer at all), /drip (headers, then one
// byte every 200 ms, forever), /not-a-set.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

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
  const timers = new Set<ReturnType<typeof setInterval>>();

  const json = (response: ServerResponse, body: string) =>
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);

  // /rotating/<id> publishes the key until POST /rotating/<id>/retire, then an empty set.
  const retired = new Set<string>();
  const server: Server = createServer((request, response) => {
    const rotating = /^\/rotating\/([\w-]+)(\/retire)?$/.exec(request.url ?? '');
    if (rotating) {
      const [, id, retire] = rotating as unknown as [string, string, string | undefined];
      if (retire && request.method === 'POST') retired.add(id);
      return json(response, retired.has(id) ? '{"keys":[]}' : good);
    }
    switch (request.url) {
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
        for (const timer of timers) clearInterval(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
