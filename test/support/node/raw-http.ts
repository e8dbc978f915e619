// Raw HTTP/1.1 on a loopback socket, for requests no client library sends as written (two Host
// headers, none, an absolute-form target), and for several requests on one connection whose fate
// after each answer a test must see.
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

export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated header's values joined with `, `. */
  headers: Record<string, string>;
  body: string;
}

/**
 * One keep-alive HTTP/1.1 connection to 127.0.0.1:port on which requests are written byte for byte
 * and answers read one at a time (Content-Length or chunked framing), so a test can see what the
 * server does with the connection after an answer: the next answer on it, or its close.
 */
export interface KeepAliveConnection {
  /** Writes raw bytes (a request head, a body, part of one). */
  write(bytes: string | Uint8Array): Promise<void>;
  /** The next answer on the connection; rejects when the connection closes first or after `timeoutMs`. */
  answer(timeoutMs?: number): Promise<RawAnswer>;
  /** True once the server (or an error) has closed the connection. */
  readonly closed: boolean;
  close(): void;
}

export function keepAliveConnection(port: number): Promise<KeepAliveConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffered: Buffer = Buffer.alloc(0);
    let closed = false;
    let wake: (() => void) | null = null;
    const notify = () => {
      const waiting = wake;
      wake = null;
      waiting?.();
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      notify();
    });
    socket.on('close', () => {
      closed = true;
      notify();
    });
    socket.on('error', () => {
      closed = true;
      notify();
    });
    socket.once('connect', () => resolve(connection));

    /** Resolves when `take` finds what it needs in the buffer; rejects on close or at the deadline. */
    const until = <T>(take: () => T | null, deadline: number): Promise<T> =>
      new Promise((done, fail) => {
        const attempt = () => {
          const taken = take();
          if (taken !== null) return done(taken);
          if (closed) return fail(new Error('the connection closed before a whole answer'));
          const left = deadline - Date.now();
          if (left <= 0) return fail(new Error('no whole answer in time'));
          const timer = setTimeout(attempt, left);
          wake = () => {
            clearTimeout(timer);
            attempt();
          };
        };
        attempt();
      });

    const takeBytes = (count: number): Buffer | null => {
      if (buffered.length < count) return null;
      const taken = buffered.subarray(0, count);
      buffered = buffered.subarray(count);
      return taken;
    };
    const takeLine = (): string | null => {
      const end = buffered.indexOf('\r\n');
      if (end < 0) return null;
      const line = buffered.subarray(0, end).toString('latin1');
      buffered = buffered.subarray(end + 2);
      return line;
    };

    const connection: KeepAliveConnection = {
      write: (bytes) => new Promise((done, fail) => socket.write(bytes, (error) => (error ? fail(error) : done()))),
      async answer(timeoutMs = 10_000) {
        const deadline = Date.now() + timeoutMs;
        const head = await until(() => {
          const end = buffered.indexOf('\r\n\r\n');
          if (end < 0) return null;
          const text = buffered.subarray(0, end).toString('latin1');
          buffered = buffered.subarray(end + 4);
          return text;
        }, deadline);
        const [statusLine, ...fields] = head.split('\r\n');
        const headers: Record<string, string> = {};
        for (const field of fields) {
          const colon = field.indexOf(':');
          const name = field.slice(0, colon).trim().toLowerCase();
          const value = field.slice(colon + 1).trim();
          headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
        }
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
        let body: Buffer = Buffer.alloc(0);
        if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
          for (;;) {
            const size = parseInt(await until(takeLine, deadline), 16);
            const chunk = await until(() => takeBytes(size + 2), deadline);
            if (size === 0) break;
            body = Buffer.concat([body, chunk.subarray(0, size)]);
          }
        } else {
          body = await until(() => takeBytes(Number(headers['content-length'] ?? 0)), deadline);
        }
        return { status, headers, body: body.toString('utf8') };
      },
      get closed() {
        return closed;
      },
      close: () => socket.destroy(),
    };
    socket.once('error', reject);
  });
}
