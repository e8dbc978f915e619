// The MCP Apps view the Worker serves (assets/mcp-view.html) is the build of its sources, the
// explorer's own renderer included, and its names are the extension's own.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as extApps from '@modelcontextprotocol/ext-apps/server';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { VIEW_OUTPUT, VIEW_SOURCES, buildMcpView } from '../../scripts/build-mcp-view.mjs';
import * as view from '../../src/http/mcp-view';
import { CONTRACTS } from '../../src/contracts/registry';

const root = path.resolve(import.meta.dirname, '../..');

describe('assets/mcp-view.html', () => {
  // Every tool's `_meta.ui` names the view, so a contract it cannot draw would open a page that says so.
  it('draws every contract the registry serves: its renderer maps each schema id to its REST route', () => {
    const source = readFileSync(path.join(root, 'demo/explorer/render.js'), 'utf8');
    const table = /const SCHEMA_ROUTES = \{([^}]*)\};/.exec(source)?.[1] ?? '';
    const drawn = Object.fromEntries([...table.matchAll(/'([^']+)':\s*'([^']+)'/g)].map((match) => [match[1], match[2]]));
    const served = Object.fromEntries(CONTRACTS.map((contract) => [contract.schema, contract.route.replace('/api/v1/', '')]));
    expect(drawn).toEqual(served);
  });

  it('is current: equal to a fresh build of its sources (npm run build:view)', () => {
    expect(readFileSync(VIEW_OUTPUT, 'utf8') === buildMcpView(), 'assets/mcp-view.html is stale: run npm run build:view').toBe(true);
  });

  it('inlines the explorer page\'s own renderer, the same file the explorer loads', () => {
    expect(VIEW_SOURCES.scripts).toContain('demo/explorer/render.js');
    expect(VIEW_SOURCES.styles).toContain('demo/explorer/render.css');
    const explorerPage = readFileSync(path.join(root, 'demo/explorer/index.html'), 'utf8');
    expect(explorerPage).toContain('<script src="/render.js" defer></script>');
    expect(explorerPage).toContain('<link rel="stylesheet" href="/render.css">');
    const built = buildMcpView();
    expect(built).toContain(readFileSync(path.join(root, 'demo/explorer/render.js'), 'utf8'));
  });

  it('is one self-contained document: one inline script and style, nothing loaded, a CSP of their hashes and no network', () => {
    const html = buildMcpView();
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html.match(/<style\b/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script[^>]*\bsrc=|<link\b|<img\b|<iframe\b|@import|url\(/i);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      expect.stringMatching(/^script-src 'sha256-[A-Za-z0-9+/]+=*'$/),
      expect.stringMatching(/^style-src 'sha256-[A-Za-z0-9+/]+=*'$/),
      "base-uri 'none'",
      "form-action 'none'",
    ]);
  });

  it('puts note text into the page as text only: no innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
    for (const file of VIEW_SOURCES.scripts) {
      expect(readFileSync(path.join(root, file), 'utf8')).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
    }
  });
});

describe('the view names what @modelcontextprotocol/ext-apps names', () => {
  it('the extension id, MIME type and legacy tool key are the ext-apps server helpers\' constants', () => {
    expect(view.VIEW_EXTENSION_ID).toBe(extApps.EXTENSION_ID);
    expect(view.VIEW_MIME_TYPE).toBe(extApps.RESOURCE_MIME_TYPE);
    expect(view.LEGACY_RESOURCE_URI_META_KEY).toBe(extApps.RESOURCE_URI_META_KEY);
    expect(view.CLIENT_CAPABILITIES_META_KEY).toBe(CLIENT_CAPABILITIES_META_KEY);
  });

  it('a tool\'s _meta is what registerAppTool sets for _meta.ui.resourceUri', () => {
    let registered: Record<string, unknown> | undefined;
    const server = { registerTool: (_name: string, config: { _meta: Record<string, unknown> }) => void (registered = config._meta) };
    extApps.registerAppTool(server as never, 'tool', { _meta: { ui: { resourceUri: view.VIEW_URI } } }, (() => ({ content: [] })) as never);
    expect(view.viewToolMeta()).toEqual(registered);
  });

  it('a client declares the view as getUiCapability reads it', () => {
    const capabilities = { extensions: { [extApps.EXTENSION_ID]: { mimeTypes: [extApps.RESOURCE_MIME_TYPE] } } };
    const message = { params: { _meta: { [CLIENT_CAPABILITIES_META_KEY]: capabilities } } };
    expect(extApps.getUiCapability(capabilities)?.mimeTypes).toContain(view.VIEW_MIME_TYPE);
    expect(view.declaresView(message)).toBe(true);
    expect(view.declaresView({ params: { _meta: { [CLIENT_CAPABILITIES_META_KEY]: {} } } })).toBe(false);
    expect(view.declaresView({ params: { capabilities } })).toBe(false);
  });
});
