// @ts-check
/**
 * Loopback-only serving for the local tools: which addresses count as loopback, listening on one,
 * and the rule against DNS rebinding (a request is served only when it names this server, by its
 * loopback address or `localhost`, and its port).
 */

/**
 * True for `localhost`, `::1` (with or without brackets, as URL.hostname writes it) and 127.0.0.0/8.
 * @param {unknown} host
 */
export function isLoopbackHost(host) {
  if (typeof host !== 'string') return false;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/**
 * The host part of a URL for an address: IPv6 in brackets.
 * @param {string} address
 */
export function urlHost(address) {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * Starts `server` listening on host:port (0 picks a free port); rejects with the listen error
 * (EADDRINUSE, ...).
 * @param {import('node:net').Server} server
 * @param {number} port
 * @param {string} host
 * @returns {Promise<import('node:net').AddressInfo>}
 */
export function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('unexpected listen address'));
      else resolve(address);
    });
  });
}

/**
 * The Host values (lower case) a server bound to this loopback address and port answers:
 * `<address>:<port>` (`[::1]:<port>` for IPv6) and `localhost:<port>`.
 * @param {import('node:net').AddressInfo} bound
 * @returns {Set<string>}
 */
export function ownHostValues(bound) {
  return new Set([`${urlHost(bound.address)}:${bound.port}`, `localhost:${bound.port}`]);
}

/** An absolute-form request target (`http://authority/path`): its scheme and raw authority. */
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/;

/**
 * Whether a request names this server: exactly one Host header, equal (case-insensitively) to one of
 * `allowed`, and, for an absolute-form target, an `http` one whose authority is one of `allowed`
 * too. Anything else (no or an empty Host, a foreign name, userinfo, another port, a second Host
 * header) is a request meant for another site, as a DNS-rebinding page sends.
 * @param {import('node:http').IncomingMessage} req
 * @param {ReadonlySet<string>} allowed lower case, as ownHostValues gives them
 */
export function isAddressedTo(req, allowed) {
  const hosts = req.headersDistinct.host;
  if (hosts === undefined || hosts.length !== 1 || !allowed.has(hosts[0].toLowerCase())) return false;
  const target = req.url ?? '';
  if (target.startsWith('/') || target === '*') return true;
  const absolute = ABSOLUTE_FORM.exec(target);
  return absolute !== null && absolute[1].toLowerCase() === 'http' && allowed.has(absolute[2].toLowerCase());
}
