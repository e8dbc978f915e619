// The MCP Apps view (SEP-1865) in headless Chromium, inside a minimal MCP Apps host written to the
// extension's spec (revision 2026-01-26): the host reads the tools and the view resource from the
// running Worker over MCP, calls a tool, renders the view's HTML in a sandboxed iframe
// (sandbox="allow-scripts": an opaque origin, no same-origin access, no network by the view's own
// CSP), answers `ui/initialize` with a theme and style variables, then sends
// `ui/notifications/tool-input` and `ui/notifications/tool-result` after `ui/notifications/initialized`
// (Lifecycle, 2. UI Initialization). Screenshots of a long, a CJK and an RTL note go to test-results/.
//
// The same skip rule as browser.test.ts: without /usr/bin/chromium the suite is skipped with a
// warning, except in CI, where browser.test.ts fails.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintViewerToken } from '../../scripts/token.mjs';

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const RESULTS_DIR = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'), 'test-results');
const chromiumPresent = existsSync(CHROMIUM_PATH);

const workerUrl = inject('workerUrl');
const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** A long note: the demo vault's heading stress test. */
const LONG_NOTE = 'reference/heading-stress.md';
/** The demo note whose headings are hostile markup. */
const HOSTILE_NOTE = 'inbox/suspicious-import.md';
const RTL_NOTE = 'e2e-view/ملاحظات/خطة.md';
const CJK_NOTE = 'e2e-view/筆記/会議.md';
const SCRIPT_NOTES = [
  {
    path: RTL_NOTE,
    frontmatter: { title: 'خطة المشروع', tags: ['تخطيط', 'q3'] },
    body: ['# مقدمة المشروع', 'نص.', '## المرحلة 1: جمع البيانات (API)', 'نص.', '### שלב ב׳: בדיקות', 'טקסט.', '# English after RTL', ''].join('\n\n'),
  },
  {
    path: CJK_NOTE,
    frontmatter: { title: '会議メモ', tags: ['会議', '东京'] },
    body: ['# 概要', '本文。', '## 决定事项与下一步', '文字。', '### 한국어 제목', '내용.', '## 東京オフィスの移転計画について長い見出しが折り返されるかを確かめる', ''].join('\n\n'),
  },
];

/**
 * The host page: one sandboxed iframe for the view, and the host side of the postMessage JSON-RPC.
 * window.hostLog records what the view sent (methods only); window.hostSend sends the host's own.
 */
const HOST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>MCP Apps test host</title>
<style>body{margin:0;padding:16px;background:#888} iframe{border:1px solid #444;width:820px;height:120px;display:block}</style></head>
<body><iframe id="view" sandbox="allow-scripts" title="MCP App"></iframe><script>
window.hostLog = [];
window.startHost = ({ html, toolInput, toolResult, hostContext }) => {
  const frame = document.getElementById('view');
  const post = (message) => frame.contentWindow.postMessage({ jsonrpc: '2.0', ...message }, '*');
  window.hostSend = post;
  window.addEventListener('message', (event) => {
    if (event.source !== frame.contentWindow) return;
    const message = event.data;
    window.hostLog.push(message.method ?? 'response');
    if (message.method === 'ui/initialize') {
      post({ id: message.id, result: { protocolVersion: '2026-01-26', hostInfo: { name: 'knowtation-e2e-host', version: '0' }, hostCapabilities: {}, hostContext } });
    } else if (message.method === 'ui/notifications/initialized') {
      post({ method: 'ui/notifications/tool-input', params: { arguments: toolInput } });
      post({ method: 'ui/notifications/tool-result', params: toolResult });
    } else if (message.method === 'ui/notifications/size-changed') {
      frame.style.height = Math.min(message.params.height + 2, 2400) + 'px';
    }
  });
  frame.srcdoc = html;
};
</script></body></html>`;

interface RpcResult {
  result?: any;
  error?: { code: number; message: string };
}

describe.skipIf(!chromiumPresent)('the MCP Apps view in a minimal host, fed by the running Worker', () => {
  let browser: Browser;
  let token: string;
  let viewHtml: string;
  let toolByContract: Map<string, { name: string; _meta?: any }>;
  const pages: Page[] = [];

  async function rpc(method: string, params: Record<string, unknown>): Promise<RpcResult> {
    const response = await fetch(`${workerUrl}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}`, 'MCP-Protocol-Version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as RpcResult;
  }

  beforeAll(async () => {
    const seeded = await fetch(`${inject('canisterUrl')}/__control/notes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Gateway-Auth': inject('canisterSecret') },
      body: JSON.stringify({ user: 'demo', vault: 'default', notes: SCRIPT_NOTES }),
    });
    expect(seeded.status).toBe(200);
    token = await mintViewerToken('demo', 600, inject('sessionSecret'));
    // What a host does on connecting: the tools, the view they name, and the view's HTML.
    const tools = (await rpc('tools/list', {})).result.tools as Array<{ name: string; outputSchema: any; _meta?: any }>;
    toolByContract = new Map(tools.map((tool) => [String(tool.outputSchema.properties.schema.const), tool]));
    const uris = new Set(tools.map((tool) => tool._meta?.ui?.resourceUri));
    expect(uris.size).toBe(1);
    const [uri] = [...uris];
    const read = (await rpc('resources/read', { uri })).result.contents[0];
    expect(read).toMatchObject({ uri, mimeType: VIEW_MIME_TYPE });
    viewHtml = read.text;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    mkdirSync(RESULTS_DIR, { recursive: true });
  });

  afterAll(async () => {
    for (const page of pages) await page.close().catch(() => {});
    await browser?.close();
  });

  /** Calls the contract's tool on the Worker and renders its result in the host; resolves once the view has drawn. */
  async function show(schema: string, notePath: string, hostContext: Record<string, unknown> = { theme: 'light' }) {
    const tool = toolByContract.get(schema)!;
    const toolResult = (await rpc('tools/call', { name: tool.name, arguments: { path: notePath } })).result;
    const page = await browser.newPage({ viewport: { width: 880, height: 900 } });
    pages.push(page);
    const dialogs: string[] = [];
    const requests: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('request', (request) => requests.push(request.url()));
    await page.setContent(HOST_PAGE);
    await page.evaluate((start) => (window as any).startHost(start), { html: viewHtml, toolInput: { path: notePath }, toolResult, hostContext });
    const frame = await viewFrame(page);
    await frame.waitForSelector('body[data-state="done"], body[data-state="error"]');
    return { page, frame, toolResult, dialogs, requests };
  }

  async function viewFrame(page: Page): Promise<Frame> {
    await expect.poll(() => page.frames().length).toBe(2);
    return page.frames()[1];
  }

  /** Screenshot of the host page once the view has reported its size. */
  async function screenshot(page: Page, name: string) {
    await page.waitForFunction(() => (window as any).hostLog.includes('ui/notifications/size-changed'));
    await page.screenshot({ path: path.join(RESULTS_DIR, name), fullPage: true });
  }

  it('a long note: every heading of the outline drawn as text with its level and id, nested and collapsible', async () => {
    const { page, frame, toolResult, requests } = await show('knowtation.note_outline/v1', LONG_NOTE);
    const payload = toolResult.structuredContent;
    expect(payload.headings.length).toBeGreaterThan(50);
    expect(await frame.getAttribute('body', 'data-state')).toBe('done');
    expect(await frame.locator('#tree .text').allTextContents()).toEqual(payload.headings.map((h: any) => h.text || '(empty heading)'));
    expect(await frame.locator('#tree .id').allTextContents()).toEqual(payload.headings.map((h: any) => `#${h.id}`));
    expect(await frame.textContent('#status')).toBe(`${payload.headings.length} headings${payload.truncated ? ' · truncated by the contract' : ''}`);
    expect(await frame.textContent('#schema')).toBe('knowtation.note_outline/v1');
    expect(await frame.textContent('#legend')).toMatch(/^Every heading of the note, in order/);
    // Collapsible: Collapse all closes every level, Expand all opens them again.
    const details = frame.locator('#tree details');
    expect(await details.count()).toBeGreaterThan(0);
    await frame.click('#collapse-all');
    expect(await details.evaluateAll((nodes) => nodes.every((node) => !(node as HTMLDetailsElement).open))).toBe(true);
    await frame.click('#expand-all');
    expect(await details.evaluateAll((nodes) => nodes.every((node) => (node as HTMLDetailsElement).open))).toBe(true);
    // The handshake in the spec's order, and not one request from the page or the view.
    expect((await page.evaluate(() => (window as any).hostLog as string[])).slice(0, 2)).toEqual(['ui/initialize', 'ui/notifications/initialized']);
    expect(requests.filter((url) => !url.startsWith('about:') && !url.startsWith('data:'))).toEqual([]);
    await screenshot(page, 'mcp-view-long.png');
  });

  it('a CJK note: sections with ids and body flags, headings as text', async () => {
    const { page, frame, toolResult } = await show('knowtation.section_source/v0', CJK_NOTE);
    const sections = toolResult.structuredContent.sections as Array<{ heading_text: string; section_id: string }>;
    expect(await frame.locator('#tree .text').allTextContents()).toEqual(sections.map((section) => section.heading_text));
    expect(await frame.locator('#tree .id').allTextContents()).toEqual(sections.map((section) => `#${section.section_id}`));
    expect(await frame.locator('#tree .flag').count()).toBe(sections.length);
    // The long heading wraps inside the view instead of widening it.
    expect(await frame.$eval('html', (root) => root.scrollWidth <= root.clientWidth)).toBe(true);
    await screenshot(page, 'mcp-view-cjk.png');
  });

  it('an RTL note in the dark theme: headings keep their own direction, colours follow the host', async () => {
    const { page, frame, toolResult } = await show('knowtation.document_tree/v0', RTL_NOTE, { theme: 'dark' });
    expect(await frame.locator('#tree .text').first().textContent()).toBe(toolResult.structuredContent.root.children[0].text);
    const directions = await frame.$$eval('#tree .text', (nodes) => nodes.map((node) => [node.getAttribute('dir'), getComputedStyle(node).direction]));
    expect(directions.map(([dir]) => dir).every((dir) => dir === 'auto')).toBe(true);
    expect(directions.map(([, direction]) => direction)).toEqual(['rtl', 'rtl', 'rtl', 'ltr']);
    // SEP-1865 Theming: the theme sets the colour scheme; the view's own dark fallbacks apply.
    expect(await frame.$eval('html', (root) => getComputedStyle(root).colorScheme)).toBe('dark');
    expect(await frame.$eval('html', (root) => getComputedStyle(root).backgroundColor)).toBe('rgb(18, 21, 27)');
    await screenshot(page, 'mcp-view-rtl.png');
    // A host-context change with the host's own variables is applied as they come.
    await page.evaluate(() =>
      (window as any).hostSend({ method: 'ui/notifications/host-context-changed', params: { theme: 'light', styles: { variables: { '--color-background-primary': 'rgb(1, 2, 3)', '--color-text-primary': 'rgb(250, 251, 252)' } } } }),
    );
    await expect.poll(() => frame.$eval('html', (root) => getComputedStyle(root).backgroundColor)).toBe('rgb(1, 2, 3)');
    expect(await frame.$eval('#tree .text', (node) => getComputedStyle(node).color)).toBe('rgb(250, 251, 252)');
    expect(await frame.$eval('html', (root) => getComputedStyle(root).colorScheme)).toBe('light');
  });

  it('the light theme: the view follows it with its own light colours', async () => {
    const { frame, toolResult } = await show('knowtation.metadata_facets/v0', RTL_NOTE, { theme: 'light' });
    expect(await frame.$eval('html', (root) => getComputedStyle(root).backgroundColor)).toBe('rgb(255, 255, 255)');
    // The contract's own answer, shown as is: a tag with no slug character drops out.
    expect(toolResult.structuredContent.facets.tags).toEqual(['q3']);
    expect(await frame.locator('.facet-row:has(.key:text-is("tags")) .value').allTextContents()).toEqual(['q3']);
  });

  it('hostile heading markup stays text: no element made from it, nothing run', async () => {
    const { frame, toolResult, dialogs } = await show('knowtation.section_source/v0', HOSTILE_NOTE);
    const texts = (toolResult.structuredContent.sections as Array<{ heading_text: string }>).map((section) => section.heading_text);
    expect(texts.some((text) => /<script>/.test(text))).toBe(true);
    expect(texts.some((text) => /<img /.test(text))).toBe(true);
    expect(await frame.locator('#tree .text').allTextContents()).toEqual(texts);
    expect(await frame.locator('#tree script, #tree img, #tree svg, #tree iframe').count()).toBe(0);
    expect(await frame.locator('#tree .text').evaluateAll((nodes) => nodes.every((node) => node.childElementCount === 0))).toBe(true);
    expect(dialogs).toEqual([]);
  });

  it('a missing note reads "No note at this path." while the tool result keeps its reference text; a result from elsewhere is not drawn', async () => {
    const { frame, toolResult } = await show('knowtation.note_outline/v1', 'inbox/no-such-note.md');
    expect(toolResult.isError).toBe(true);
    expect(JSON.parse(toolResult.content[0].text)).toEqual({ error: 'Upstream 404', code: 'UPSTREAM_ERROR' });
    expect(await frame.getAttribute('body', 'data-state')).toBe('error');
    expect(await frame.textContent('#status')).toBe('No note at this path.');
    expect(await frame.locator('#tree *').count()).toBe(0);
  });
});
