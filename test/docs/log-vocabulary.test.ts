// The `op` and `outcome` vocabularies OPERATIONS.md lists are the code's: ops from the route table,
// the MCP adapter's methods and the registry's tools, plus the literal ops the handlers set;
// outcomes from every failure kind's code (outcomeCode over one value of each ReadError kind, a
// list the type checker holds complete) plus the literal codes the adapters and routes set.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '../../src/contracts/registry';
import { outcomeCode, type ReadError } from '../../src/errors';
import { KNOWN_METHODS, OTHER_METHOD_OP } from '../../src/http/mcp';
import { ROUTES } from '../../src/http/router';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const operations = readFileSync(path.join(root, 'docs/OPERATIONS.md'), 'utf8');

/** One value of every failure kind: a kind missing here is a type error. */
const ONE_OF_EACH: { [K in ReadError['kind']]: Extract<ReadError, { kind: K }> } = {
  Unauthorized: { kind: 'Unauthorized', invalidToken: true },
  InsufficientScope: { kind: 'InsufficientScope' },
  VaultForbidden: { kind: 'VaultForbidden' },
  InvalidVault: { kind: 'InvalidVault' },
  CredentialsRefused: { kind: 'CredentialsRefused' },
  InvalidPath: { kind: 'InvalidPath' },
  InvalidArguments: { kind: 'InvalidArguments' },
  NotFound: { kind: 'NotFound' },
  UpstreamDenied: { kind: 'UpstreamDenied', status: 403 },
  UpstreamStatus: { kind: 'UpstreamStatus', status: 500 },
  UpstreamTimeout: { kind: 'UpstreamTimeout' },
  UpstreamUnreachable: { kind: 'UpstreamUnreachable' },
  InvalidNoteResponse: { kind: 'InvalidNoteResponse' },
  NoteTooLarge: { kind: 'NoteTooLarge' },
  NoteTooComplex: { kind: 'NoteTooComplex' },
  RateLimited: { kind: 'RateLimited', retryAfterSeconds: 60 },
  AuthUnavailable: { kind: 'AuthUnavailable' },
  HostedAccessRefused: { kind: 'HostedAccessRefused' },
  HostedContextUnavailable: { kind: 'HostedContextUnavailable' },
  HostedContextInvalid: { kind: 'HostedContextInvalid' },
  Misconfigured: { kind: 'Misconfigured' },
  Runtime: { kind: 'Runtime' },
};

/** Every file under src/http, and the Worker entry: where handlers set their ops and outcomes. */
function handlerSources(): string[] {
  const http = readdirSync(path.join(root, 'src/http')).filter((name) => name.endsWith('.ts'));
  return [...http.map((name) => `src/http/${name}`), 'src/index.ts', 'src/log.ts'].map((file) => readFileSync(path.join(root, file), 'utf8'));
}

const literals = (pattern: RegExp): string[] => handlerSources().flatMap((text) => [...text.matchAll(pattern)].map((match) => match[1]));

/** The backticked words of the page's paragraph that starts with `lead`, up to the next heading or paragraph that starts another list. */
function documented(lead: string, until: string): Set<string> {
  const start = operations.indexOf(lead);
  const end = operations.indexOf(until, start + lead.length);
  expect(start, lead).toBeGreaterThan(-1);
  return new Set([...operations.slice(start + lead.length, end).matchAll(/`([^`\s]+)`/g)].map((match) => match[1]));
}

describe('the log line vocabularies in OPERATIONS.md are the code\'s', () => {
  it('op: every route\'s, every method the MCP adapter names, every tool, and the handlers\' own', () => {
    const code = new Set([
      ...ROUTES.map((route) => route.op),
      ...[...KNOWN_METHODS].filter((method) => method !== 'tools/call'),
      OTHER_METHOD_OP,
      ...CONTRACTS.map((contract) => contract.tool),
      ...literals(/\bop: '([a-z_]+)'/g),
    ]);
    const doc = documented('`op` values', '`outcome` values');
    for (const word of ['/mcp', 'test/docs/log-vocabulary.test.ts']) doc.delete(word);
    expect([...doc].sort()).toEqual([...code].sort());
  });

  it('outcome: every failure kind\'s code and every code the adapters and routes set', () => {
    const code = new Set([
      'ok',
      ...Object.values(ONE_OF_EACH).map((error) => outcomeCode(error)),
      ...literals(/'([A-Z][A-Z_]{2,})'/g).filter((word) => !['GET', 'POST', 'OPTIONS', 'UPSTREAM_ERROR'].includes(word)),
    ]);
    const doc = [...documented('`outcome` values', 'So an SDK refusal never logs')].filter((word) => /^(ok|[A-Z][A-Z_]+)$/.test(word));
    // HTTP_<status> stands for the SDK's refusals by their status.
    expect(doc.filter((word) => !word.startsWith('HTTP_')).sort()).toEqual([...code].sort());
  });
});
