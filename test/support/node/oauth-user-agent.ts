/**
 * A browser and an OAuth client as plain fetch calls against an authorization server over real
 * loopback HTTP: registration, PKCE, redirects followed by hand with a cookie jar, token requests.
 * Nothing is mocked; every answer is the server's own.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Cookies by name, as a browser keeps them for one loopback host (paths ignored: sending more is harmless here). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

/** RFC 7636 section 4.1-4.2: a random verifier and its S256 challenge. */
export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** POSTs client metadata to the registration endpoint (RFC 7591 section 3.1). */
export function register(registrationEndpoint: string, metadata: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(registrationEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(metadata),
  });
}

/** Registers and returns the client_id, failing the test when the server refuses. */
export async function registeredClientId(registrationEndpoint: string, metadata: Record<string, unknown>): Promise<string> {
  const response = await register(registrationEndpoint, metadata);
  const body = (await response.json()) as { client_id?: string; error?: string };
  if (response.status !== 201 || typeof body.client_id !== 'string') {
    throw new Error(`registration refused: HTTP ${response.status} ${body.error ?? ''}`);
  }
  return body.client_id;
}

/** An authorization request URL (RFC 6749 section 4.1.1); a list value repeats the parameter. */
export function authorizationUrl(authorizationEndpoint: string, params: Record<string, string | string[] | undefined>): string {
  const url = new URL(authorizationEndpoint);
  for (const [name, value] of Object.entries(params)) {
    for (const one of value === undefined ? [] : Array.isArray(value) ? value : [value]) url.searchParams.append(name, one);
  }
  return url.href;
}

export interface Hop {
  response: Response;
  url: string;
}

/**
 * Follows redirects by hand, carrying cookies, until the server sends the browser to a URL that
 * starts with `stopAt` (returned, not fetched) or answers without a redirect (returned, body unread).
 */
export async function followRedirects(start: string, stopAt: string, jar = new CookieJar(), init: RequestInit = {}): Promise<{ callback?: URL; last: Hop; hops: number }> {
  let url = start;
  let request: RequestInit = init;
  for (let hop = 0; hop < 10; hop += 1) {
    const response = await fetch(url, {
      ...request,
      redirect: 'manual',
      headers: { ...(request.headers as Record<string, string> | undefined), cookie: jar.header() },
    });
    jar.store(response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) return { last: { response, url }, hops: hop };
    await response.body?.cancel();
    const next = new URL(location, url);
    if (next.href.startsWith(stopAt)) return { callback: next, last: { response, url }, hops: hop };
    url = next.href;
    request = {};
  }
  throw new Error('too many redirects');
}

/** A form-encoded POST to the token endpoint (RFC 6749 section 4.1.3, 6). */
export async function tokenRequest(
  tokenEndpoint: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}
