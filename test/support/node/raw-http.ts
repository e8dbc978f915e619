// Raw HTTP/1.1 on a loopback socket, for requests no client library sends as written (two Host
// headers, none, an absolute-form target).
import { connect } from 'node:net';

/**
 * One request written byte for byte on a fresh connection to 127.0.0.1:port, so that no client fills
 * in or checks the Host header or the request target; the status and body of the answer, read until
 * the server closes (so `head` asks for `Connection: close`, or is HTTP/1.0).
 */
export function rawExchange(port: number, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // Written, not ended: node:http drops a half-closed connection whose answer is still being prepared.
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}
