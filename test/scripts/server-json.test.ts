// `npm run server-json`: the MCP Registry entry for a deployment, valid against the registry's
// server.json schema (test/fixtures/discovery/README.md), agreeing with the Worker's own server card,
// and refused for an origin PUBLIC_ORIGIN would refuse.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Validator, type Schema } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { checkVariables } from '../../src/config';
import { discoveryIdentity, serverCard } from '../../src/http/discovery';
import { SERVER_JSON_SCHEMA_URL, UsageError, serverJson } from '../../scripts/server-json';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const fixture = (name: string): Schema => JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/discovery', name), 'utf8'));
const registrySchema = fixture('registry-server.schema.json');
const registryValidator = new Validator(registrySchema, '7', false);
const cardValidator = new Validator({ ...fixture('server-card.schema.json'), $ref: '#/$defs/ServerCard' } as Schema, '2020-12', false);

const errorsOf = (validator: Validator, value: unknown): string[] =>
  validator.validate(value).errors.map((error) => `${error.instanceLocation}: ${error.error}`);

const ORIGINS = ['https://mcp.example.com', 'https://notes.example.org:8443', 'http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787'];
const OPTIONS = [{}, { name: 'com.example/notes', websiteUrl: 'https://example.com/notes?from=registry' }];

describe('server.json for the MCP Registry', () => {
  it('names the schema version the registry publishes (the one its draft documents cite)', () => {
    const detail = (registrySchema as any).definitions.ServerDetail.properties.$schema;
    expect(detail.example).toBe(SERVER_JSON_SCHEMA_URL);
  });

  for (const origin of ORIGINS) {
    for (const options of OPTIONS) {
      it(`${origin} ${JSON.stringify(options)}: valid against the registry schema, the Worker's card alike`, () => {
        const document = serverJson({ origin, ...options });
        expect(errorsOf(registryValidator, document)).toEqual([]);
        expect(document.$schema).toBe(SERVER_JSON_SCHEMA_URL);

        // Streamable HTTP at <origin>/mcp, and the one-vault form as a URL variable.
        expect(document.remotes.map((remote) => [remote.type, remote.url])).toEqual([
          ['streamable-http', `${origin}/mcp`],
          ['streamable-http', `${origin}/mcp/vaults/{vault_id}`],
        ]);
        for (const remote of document.remotes) {
          const named = [...remote.url.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
          expect(Object.keys(remote.variables ?? {})).toEqual(named);
        }

        // The entry and the /mcp card the Worker serves at this origin say the same.
        const card = serverCard(discoveryIdentity(origin, { serverCardName: options.name, websiteUrl: options.websiteUrl }), '/mcp');
        expect(errorsOf(cardValidator, card)).toEqual([]);
        const { supportedProtocolVersions: _versions, ...cardRemote } = card.remotes[0];
        expect(document.remotes[0]).toEqual(cardRemote);
        expect(document).toMatchObject({ name: card.name, title: card.title, description: card.description, version: card.version, icons: card.icons });
        expect(document.websiteUrl).toBe(card.websiteUrl);
      });
    }
  }

  it('the default name is the host reversed, the registry namespace of that domain; an address is not reversed', () => {
    expect(serverJson({ origin: 'https://mcp.example.com' }).name).toBe('com.example.mcp/knowtation-edge');
    expect(serverJson({ origin: 'http://localhost:8787' }).name).toBe('localhost/knowtation-edge');
    for (const loopback of ['http://127.0.0.1:8787', 'http://[::1]:8787']) expect(serverJson({ origin: loopback }).name).toBe('localhost/knowtation-edge');
    expect(serverJson({ origin: 'https://203.0.113.5' }).name).toBe('ip-203-0-113-5/knowtation-edge');
    expect(serverJson({ origin: 'https://[2001:db8::1]' }).name).toBe('ip-2001-db8--1/knowtation-edge');
    // A host that only starts like an address is a domain, reversed as one.
    expect(serverJson({ origin: 'https://127.example.com' }).name).toBe('com.example.127/knowtation-edge');
  });

  it.each([
    ['http://mcp.example.com', 'it is http on a host that is not loopback'],
    ['http://10.0.0.1:8787', 'it is http on a host that is not loopback'],
    ['https://mcp.example.com/', 'it ends with /'],
    ['https://mcp.example.com/mcp', 'it has a path'],
    ['https://user@mcp.example.com', 'it has user information before the host'],
    ['https://mcp.example.com?x=1', 'it has a query'],
    ['https://mcp.example.com#x', 'it has a fragment'],
    ['https://MCP.example.com:443', 'it is not written as the origin is (lower-case scheme and host, no default port): use https://mcp.example.com'],
    ['ftp://mcp.example.com', 'its scheme is ftp'],
    ['mcp.example.com', 'it is not a URL'],
    ['', '--origin is required'],
  ])('refuses the origin %j, as PUBLIC_ORIGIN would be refused, naming the rule it breaks', (origin, rule) => {
    expect(() => serverJson({ origin })).toThrow(UsageError);
    expect(() => serverJson({ origin })).toThrow(rule);
  });

  it.each([
    [{ name: 'knowtation-edge' }],
    [{ name: 'com.example/a/b' }],
    [{ name: `${'a'.repeat(200)}/b` }],
    [{ websiteUrl: 'http://example.com' }],
    [{ websiteUrl: 'not a url' }],
  ])('refuses %j as the Worker refuses SERVER_CARD_NAME / SERVER_WEBSITE_URL', (options) => {
    expect(() => serverJson({ origin: 'https://mcp.example.com', ...options })).toThrow(UsageError);
  });

  it('the registry schema refuses what looks like an entry and is not one, so the validation above can fail', () => {
    const valid = serverJson({ origin: 'https://mcp.example.com' });
    expect(errorsOf(registryValidator, valid)).toEqual([]);
    expect(errorsOf(registryValidator, { ...valid, name: 'knowtation-hosted' })).not.toEqual([]);
    expect(errorsOf(registryValidator, { ...valid, description: 'x'.repeat(101) })).not.toEqual([]);
    expect(errorsOf(registryValidator, { ...valid, remotes: [{ type: 'stdio', url: 'https://mcp.example.com/mcp' }] })).not.toEqual([]);
    expect(errorsOf(registryValidator, { ...valid, remotes: [{ type: 'streamable-http', url: 'mcp.example.com/mcp' }] })).not.toEqual([]);
    expect(errorsOf(registryValidator, { ...valid, icons: [{ src: valid.icons[0].src, sizes: ['64'] }] })).not.toEqual([]);
  });

  it('the command prints the same document, and exits 2 with no output on stdout for a refused origin', async () => {
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/server-json.ts', ...args], { cwd: repoRoot, env: { ...process.env, SERVER_CARD_NAME: '', SERVER_WEBSITE_URL: '' } });
    const { stdout } = await run(['--origin', 'https://mcp.example.com']);
    expect(JSON.parse(stdout)).toEqual(serverJson({ origin: 'https://mcp.example.com' }));
    const refused = await run(['--origin', 'http://mcp.example.com']).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.stdout).toBe('');
    expect(refused?.stderr).toContain("--origin is not valid (PUBLIC_ORIGIN's rule): it is http on a host that is not loopback: it must be https (http only on 127.0.0.1, localhost or [::1])");
  });
});

describe('SERVER_CARD_NAME and SERVER_WEBSITE_URL in the configuration checks (npm run check-config, the Worker)', () => {
  const base = { CANISTER_URL: 'https://canister.example', SESSION_SECRET: 'x'.repeat(32), PUBLIC_ORIGIN: 'https://edge.example', OAUTH_AUTHORIZATION_SERVER: 'https://hub.example' };

  it.each([
    [{}],
    [{ SERVER_CARD_NAME: 'com.example/knowtation-edge', SERVER_WEBSITE_URL: 'https://example.com/notes' }],
    [{ SERVER_CARD_NAME: '  ', SERVER_WEBSITE_URL: '' }],
  ])('accepts %j', (vars) => {
    expect(checkVariables({ ...base, ...vars })).toEqual([]);
  });

  it.each([
    ['SERVER_CARD_NAME', 'knowtation-edge', 'invalid'],
    ['SERVER_CARD_NAME', 'a/', 'invalid'],
    ['SERVER_CARD_NAME', `com.example/${'x'.repeat(200)}`, 'invalid'],
    ['SERVER_WEBSITE_URL', 'http://example.com', 'not_a_url'],
    ['SERVER_WEBSITE_URL', 'example.com', 'not_a_url'],
  ])('refuses %s=%s, by name and reason only', (variable, value, reason) => {
    expect(checkVariables({ ...base, [variable]: value })).toEqual([{ variable, reason }]);
  });
});
