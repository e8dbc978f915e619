/**
 * check-hub's only way onto the network: every request it makes to an authorization server, and
 * to a connector's client ID metadata document, goes through HubNetwork, which keeps it on the
 * server's side of the wire whatever the server publishes:
 *  - every hop is https; plain http only to a loopback host, and only when the issuer itself is
 *    loopback (the local stack);
 *  - outside the local stack, a host whose addresses are loopback, private, link-local or otherwise
 *    not public is refused before any request, and again when the connection is made (a name that
 *    resolves elsewhere the second time, DNS rebinding, is still refused);
 *  - no redirect is ever followed here (a caller that acts as a browser follows them itself, each
 *    hop through this gate);
 *  - every body is read up to a cap (MAX_BODY_BYTES unless the caller names the Worker's own), so a
 *    hostile server cannot make check-hub hold more than that.
 * Failures are values with a cause a person can read ("connection refused"), never an exception.
 */
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { TooLarge, readBodyWithin } from '../../src/bounded-read';

/** How a failure says check-hub's own rules refused the request. */
export const REFUSED = 'refused: ';

/** The cap on a body the Worker has no cap of its own for (metadata, registration, token answers). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Host names that are loopback by definition (RFC 6761 section 6.3 for localhost). */
const LOOPBACK_NAMES = new Set(['localhost']);

/**
 * Addresses a deployed Worker can never reach and check-hub must not be aimed at: loopback,
 * private (RFC 1918, RFC 4193), shared (RFC 6598), link-local, unspecified, documentation,
 * benchmarking, multicast and reserved ranges (IANA special-purpose registries). BlockList matches
 * IPv4-mapped IPv6 addresses against the IPv4 ranges too.
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** True for an address literal outside the public ranges. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A URL's host as an address literal (IPv6 without its brackets), or null for a name. */
function addressLiteral(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}

/** A loopback host: `localhost` or a loopback address literal. */
export function isLoopbackHost(hostname: string): boolean {
  if (LOOPBACK_NAMES.has(hostname.toLowerCase())) return true;
  const literal = addressLiteral(hostname);
  if (!literal) return false;
  const loopback = new BlockList();
  loopback.addSubnet('127.0.0.0', 8, 'ipv4');
  loopback.addAddress('::1', 'ipv6');
  return loopback.check(literal, isIP(literal) === 4 ? 'ipv4' : 'ipv6');
}

/** Resolves a host name to its addresses. */
export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((entry) => entry.address))));
  });

/** A refusal of check-hub's own, named in the answer instead of a network error. */
class Refused extends Error {
  readonly code = 'CHECK_HUB_REFUSED';
}

/** Sends one request; no redirects. The default sends it through a dispatcher that re-checks every address it connects to. */
export type Transport = (url: URL, init: RequestInit) => Promise<Response>;

export interface HubNetworkOptions {
  /** The issuer identifier: whether it is loopback decides the rules. */
  issuer: string;
  /** One deadline per request, headers and body together. */
  timeoutMs: number;
  /** DNS; tests name hosts without it. */
  resolve?: Resolver;
  /** The transport; tests answer without sockets. */
  transport?: Transport;
}

/** One answer, its body already read within its cap. */
export interface Exchange {
  status: number;
  headers: Headers;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export type Answer = Exchange | { failure: string };

export interface RequestOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The cap on the body (MAX_BODY_BYTES unless the Worker has its own for this document). */
  maxBytes?: number;
  /** The deadline, when it is the Worker's own rather than --timeout. */
  timeoutMs?: number;
}

export class HubNetwork {
  /** The issuer is loopback: the local stack, where http on loopback and any address are allowed. */
  readonly localIssuer: boolean;
  private readonly resolve: Resolver;
  private readonly transport: Transport;
  private readonly timeoutMs: number;
  private dispatcher: Agent | undefined;

  constructor(options: HubNetworkOptions) {
    this.localIssuer = isLoopbackHost(new URL(options.issuer).hostname);
    this.resolve = options.resolve ?? systemResolver;
    this.timeoutMs = options.timeoutMs;
    this.transport = options.transport ?? ((url, init) => this.guardedFetch(url, init));
  }

  /**
   * The connection lookup that applies the address rule when the socket is made, so the address
   * checked is the address used. Also the global dispatcher of the check-hub command, so the
   * Worker's own key-set fetch in the same process is held to it.
   */
  guardedDispatcher(): Dispatcher {
    this.dispatcher ??= new Agent({ connect: { lookup: this.guardedLookup() } });
    return this.dispatcher;
  }

  async close(): Promise<void> {
    await this.dispatcher?.close();
  }

  private guardedLookup(): LookupFunction {
    return (hostname, options, callback) => {
      this.allowedAddresses(hostname).then(
        (addresses) => {
          const entries = addresses.map((address) => ({ address, family: isIP(address) }));
          const wanted = options.family === 4 || options.family === 6 ? entries.filter((entry) => entry.family === options.family) : entries;
          if (wanted.length === 0) {
            callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
            return;
          }
          if (options.all) (callback as unknown as (error: null, all: typeof wanted) => void)(null, wanted);
          else callback(null, wanted[0].address, wanted[0].family);
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      );
    };
  }

  private guardedFetch(url: URL, init: RequestInit): Promise<Response> {
    return undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: this.guardedDispatcher() }) as unknown as Promise<Response>;
  }

  /** The host's addresses when the rule allows every one of them; else a Refused. */
  private async allowedAddresses(hostname: string): Promise<string[]> {
    const literal = addressLiteral(hostname);
    const addresses = literal ? [literal] : await this.resolve(hostname);
    if (!this.localIssuer) {
      const refused = addresses.find(isNonPublicAddress);
      if (refused !== undefined) {
        const what = `a ${describeAddress(refused)} address`;
        throw new Refused(`${literal ? `${hostname} is ${what}` : `${hostname} resolves to ${what} (${refused})`} (a remote issuer's endpoints must be public)`);
      }
    }
    return addresses;
  }

  /**
   * Why a request to this URL is refused before it is sent (a scheme or an address the rules
   * forbid), or null. A host that cannot be resolved is not refused: its request fails on its own.
   */
  async refusal(target: string | URL): Promise<string | null> {
    const url = typeof target === 'string' ? URL.parse(target) : target;
    if (!url) return 'not a URL';
    const failure = await this.gate(url);
    return failure?.startsWith(REFUSED) ? failure.slice(REFUSED.length) : null;
  }

  /** The failure of a request to this URL before it is sent (`refused: ...` for the rules), or null when it may be sent. */
  private async gate(url: URL): Promise<string | null> {
    const scheme = this.schemeRefusal(url);
    if (scheme) return `${REFUSED}${scheme}`;
    try {
      await this.allowedAddresses(url.hostname);
    } catch (error) {
      return error instanceof Refused ? `${REFUSED}${error.message}` : failureCause(error);
    }
    return null;
  }

  private schemeRefusal(url: URL): string | null {
    if (url.username || url.password) return 'a URL with userinfo';
    if (url.protocol === 'http:') {
      if (!this.localIssuer) return 'plain http (every hop must be https for a remote issuer)';
      if (!isLoopbackHost(url.hostname)) return 'plain http off loopback';
      return null;
    }
    return url.protocol === 'https:' ? null : `a ${shownScheme(url.protocol)} URL, not https`;
  }

  /** One request under the rules, its body read within its cap. */
  async request(target: string | URL, options: RequestOptions = {}): Promise<Answer> {
    const url = typeof target === 'string' ? URL.parse(target) : target;
    if (!url) return { failure: 'not a URL' };
    const gated = await this.gate(url);
    if (gated) return { failure: gated };
    const signal = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs);
    try {
      const response = await this.transport(url, {
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        redirect: 'manual',
        signal,
      });
      const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
      const bytes = await readBodyWithin(response, maxBytes);
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, json };
    } catch (error) {
      if (error instanceof TooLarge) return { failure: `a body over ${options.maxBytes ?? MAX_BODY_BYTES} bytes (read stopped at the cap)` };
      return { failure: signal.aborted ? 'timed out' : failureCause(error) };
    }
  }
}

/** What kind of non-public address, for the refusal. */
function describeAddress(address: string): string {
  if (isLoopbackHost(isIP(address) === 6 ? `[${address}]` : address)) return 'loopback';
  return 'private or reserved';
}

function shownScheme(protocol: string): string {
  return /^[a-z][a-z0-9+.-]{0,20}:$/i.test(protocol) ? protocol.slice(0, -1) : 'non-http';
}

/** Network error codes as a person says them. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (EAI_AGAIN)',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out',
  UND_ERR_BODY_TIMEOUT: 'timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is for another host',
};

/** The cause of a failed request, readable and printable: never `TypeError`. */
export function failureCause(error: unknown): string {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth += 1) {
    if (cause instanceof Refused) return cause.message;
    const code = (cause as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (CAUSES[code]) return CAUSES[code];
    if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)) return `TLS certificate not trusted (${code.replace(/[^A-Z0-9_]/g, '')})`;
    if (/^[A-Z0-9_]{1,40}$/.test(code)) return code;
  }
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  return 'the connection failed';
}
