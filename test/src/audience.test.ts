// RFC 8707 audience binding, exact (src/auth/resource.ts audienceAdmits): an audience admits a
// resource only when it is this Worker's public origin followed by the resource's path or a parent
// of it on a `/` boundary (RFC 8707 section 2: the resource is an absolute URI; RFC 9728 section 3.3:
// identifiers are compared as strings). Generated audiences, checked against a second formulation
// that enumerates every admitted spelling, and generated look-alikes that must be refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { audienceAdmits, type ProtectedResource, type ResourcePath } from '../../src/auth/resource';

const ORIGINS = ['https://edge.example', 'http://127.0.0.1:8787', 'https://kt.example.com:8443'];
const PATHS: ResourcePath[] = ['', '/mcp', '/mcp/vaults/a', '/mcp/vaults/team-notes_2'];

function resource(origin: string, path: ResourcePath): ProtectedResource {
  return { origin, path, id: `${origin}${path}`, metadataUrl: `${origin}/.well-known/oauth-protected-resource${path}` };
}

/**
 * Every audience spelling that admits the resource: the resource itself, and the origin followed by
 * each proper `/`-boundary ancestor of its path, with and without a trailing `/` (for http(s) an
 * empty path is `/`, RFC 9110 section 4.2.3).
 */
function admittedSpellings(origin: string, path: string): Set<string> {
  const spellings = new Set([`${origin}${path}`, `${origin}/`, origin]);
  const segments = path.split('/').slice(1);
  for (let i = 1; i < segments.length; i += 1) {
    const ancestor = `/${segments.slice(0, i).join('/')}`;
    spellings.add(`${origin}${ancestor}`);
    spellings.add(`${origin}${ancestor}/`);
  }
  return spellings;
}

/** Audiences near the admitted ones: another scheme, host, port or userinfo; extra, encoded or cut path text. */
const lookalike = (origin: string, path: string): fc.Arbitrary<string> => {
  const url = new URL(origin);
  const authority = fc.constantFrom(
    url.host,
    url.host.toUpperCase(),
    `${url.hostname}.`,
    `${url.hostname}x`,
    `x${url.hostname}`,
    `${url.hostname}:443`,
    `${url.hostname}:80`,
    `user@${url.host}`,
    `${url.host}@evil.example`,
    `evil.example/${url.host}`,
  );
  const scheme = fc.constantFrom('https:', 'http:', 'HTTPS:', 'wss:', '');
  const base = fc.constantFrom(...admittedSpellings(origin, path), `${origin}${path}/`, `${origin}/mcpx`, `${origin}/mc`);
  const suffix = fc.constantFrom('', '/', 'x', '/..', '/./', '?a=1', '#f', '%2F', '/%6dcp', ' ', '\u00e9', '/mcp', '/vaults');
  return fc.oneof(
    fc.tuple(scheme, authority, fc.constantFrom(...admittedSpellings('', path))).map(([s, a, p]) => `${s}//${a}${p}`),
    fc.tuple(base, suffix).map(([b, s]) => `${b}${s}`),
    base.map((b) => b.slice(0, -1)),
    fc.string({ maxLength: 40 }),
    fc.constantFrom('', '/', 'https:', 'https:/', 'https://', `${origin.split('//')[0]}//`, '*'),
  );
};

describe('RFC 8707 audience binding is exact', () => {
  it('admits exactly the enumerated spellings, for generated audiences near each resource', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ORIGINS).chain((origin) =>
          fc.constantFrom(...PATHS).chain((path) => fc.tuple(fc.constant(origin), fc.constant(path), lookalike(origin, path))),
        ),
        ([origin, path, audience]) => {
          expect(audienceAdmits([audience], resource(origin, path)), JSON.stringify(audience)).toBe(admittedSpellings(origin, path).has(audience));
        },
      ),
      { numRuns: 4000 },
    );
  });

  it('every enumerated spelling is admitted, and none for another resource path that is not below it', () => {
    for (const origin of ORIGINS) {
      for (const path of PATHS) {
        for (const audience of admittedSpellings(origin, path)) expect(audienceAdmits([audience], resource(origin, path)), audience).toBe(true);
      }
    }
    expect(audienceAdmits(['https://edge.example/mcp/vaults/a'], resource('https://edge.example', '/mcp'))).toBe(false);
    expect(audienceAdmits(['https://edge.example/mcp/vaults/a'], resource('https://edge.example', '/mcp/vaults/ab'))).toBe(false);
    expect(audienceAdmits(['https://edge.example/mcp'], resource('https://edge.example', ''))).toBe(false);
    expect(audienceAdmits(['https://edge.example/mcp/'], resource('https://edge.example', '/mcp'))).toBe(false);
  });

  it('a prefix of the resource string that is not this origin admits nothing (the former parent rule)', () => {
    const mcp = resource('https://edge.example', '/mcp/vaults/a');
    for (const audience of ['https:', 'https:/', 'https://', 'https://edge', 'https://edge.ex', 'https://edge.example/m']) {
      expect(audienceAdmits([audience], mcp), audience).toBe(false);
    }
  });

  it('a list admits when any one entry does, and an empty list admits nothing', () => {
    const mcp = resource('https://edge.example', '/mcp');
    expect(audienceAdmits(['client-1', 'https://other.example/mcp', 'https://edge.example/mcp'], mcp)).toBe(true);
    expect(audienceAdmits(['client-1', 'https://other.example/mcp'], mcp)).toBe(false);
    expect(audienceAdmits([], mcp)).toBe(false);
  });
});
