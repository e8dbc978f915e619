// `mcp-remote`, the published bridge desktop clients (Claude Desktop, Cursor) use for remote MCP
// servers, driven headless over stdio by the MCP SDK v2 client: it meets the Worker's 401,
// discovers the local authorization server (RFC 9728, RFC 8414), registers (RFC 7591), prints the
// authorization URL, and once the user agent has approved, redeems the code with PKCE (RFC 7636)
// for a token bound to the endpoint (RFC 8707), then lists the tools and calls one. No token or
// header is handed to it.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../support/node/local-worker';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { authorizeInUserAgent } from '../support/node/oauth-client';
import { CONTRACTS } from '../../src/contracts/registry';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MCP_REMOTE = path.join(repoRoot, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const workerUrl = inject('workerUrl');
const NOTE_PATH = 'projects/Aurora/roadmap.md';

const scratch = mkdtempSync(path.join(tmpdir(), 'mcp-remote-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A PATH entry whose `xdg-open` does nothing: mcp-remote then believes a browser opened, and the
 * test is the browser. Nothing real is launched.
 */
function browserStub(): string {
  const bin = path.join(scratch, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['xdg-open', 'gio', 'x-www-browser', 'sensible-browser']) {
    const opener = path.join(bin, name);
    writeFileSync(opener, '#!/bin/sh\nexit 0\n');
    chmodSync(opener, 0o755);
  }
  return bin;
}


/** GETs the redirect URI as a browser would, once mcp-remote's callback server listens (it starts after the URL is printed). */
async function deliverCallback(url: string): Promise<Response> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Resolves with the first authorization URL mcp-remote prints on stderr. */
function authorizationUrlFrom(stderr: NodeJS.ReadableStream): Promise<URL> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /Please authorize this client by visiting:\s*(\S+)/.exec(text);
      if (match) {
        stderr.off('data', onData);
        resolve(new URL(match[1]));
      }
    };
    stderr.on('data', onData);
    stderr.once('end', () => reject(new Error(`mcp-remote ended before asking for authorization:\n${text.slice(-2000)}`)));
  });
}

describe('mcp-remote over OAuth', () => {
  it.each(['/mcp', '/mcp/vaults/default'])('on %s: from the 401 to tool results over stdio', async (endpoint) => {
    const callbackPort = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE, `${workerUrl}${endpoint}`, String(callbackPort), '--host', '127.0.0.1'],
      env: {
        PATH: `${browserStub()}:${process.env.PATH ?? ''}`,
        HOME: scratch,
        MCP_REMOTE_CONFIG_DIR: mkdtempSync(path.join(scratch, 'auth-')),
      },
      stderr: 'pipe',
    });
    const stderr = transport.stderr as unknown as NodeJS.ReadableStream;
    const authorizationUrl = authorizationUrlFrom(stderr);
    let stderrText = '';
    stderr.on('data', (chunk: Buffer) => (stderrText += chunk.toString('utf8')));
    const client = new Client({ name: 'desktop-client-stand-in', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const connected = client.connect(transport);
    connected.catch(() => {}); // awaited below; a failure before then is reported there
    try {
      // The browser's part: approve, and let the redirect reach mcp-remote's callback server.
      const url = await authorizationUrl;
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('resource')).toBe(`${workerUrl}${endpoint}`);
      const redirectUri = url.searchParams.get('redirect_uri')!;
      const callback = await authorizeInUserAgent(url, redirectUri);
      const delivered = await deliverCallback(`${redirectUri}?${callback}`);
      expect(delivered.status).toBeLessThan(400);
      await connected;

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(CONTRACTS.map((contract) => contract.tool).sort());
      const result = (await client.callTool({ name: 'get_section_source', arguments: { path: NOTE_PATH } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { schema: string }).schema).toBe('knowtation.section_source/v0');
    } catch (error) {
      throw new Error(`${String(error)}\n--- mcp-remote stderr ---\n${stderrText.slice(-4000)}`);
    } finally {
      await client.close().catch(() => {});
    }
  });
});
