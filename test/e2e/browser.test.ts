// A real browser against the real Worker: headless Chromium (Debian `chromium`, driven by
// playwright-core) loads test/e2e/fixtures/section-source.html from a page server whose origin is
// in CORS_ORIGINS, and the page fetches /api/v1/section-source cross-origin with a bearer token and
// renders the headings as text. The same page from an origin that is not allowed must be refused
// by the browser's CORS check. See test/support/node/e2e-setup.ts for the servers.
//
// Without /usr/bin/chromium the suite is skipped with a warning, except in CI (CI=true), where it
// fails: CI installs the browser with scripts/ensure-chromium.sh.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { request as httpRequest } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOT_PATH = '/tmp/knowtation-edge-e2e-section-source.png';
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Screenshot of the explorer page; test-results/ is gitignored. */
const EXPLORER_SCREENSHOT_PATH = path.join(REPO_ROOT, 'test-results', 'explorer.png');

/** The demo note whose headings are hostile markup and prompt-injection text. */
const HOSTILE_NOTE = 'inbox/suspicious-import.md';
/** Headings of HOSTILE_NOTE that would create elements (and run code) if rendered as HTML. */
const SCRIPT_HEADING = /<script>.*<\/script>/;
const IMG_ONERROR_HEADING = /<img src=x onerror=alert\(1\)>/;

const chromiumPresent = existsSync(CHROMIUM_PATH);
const inCi = process.env.CI === 'true';
if (!chromiumPresent && !inCi) {
  console.warn(
    `browser.test.ts: ${CHROMIUM_PATH} is missing, so the headless-browser tests are SKIPPED. ` +
      'Install it with `sudo sh scripts/ensure-chromium.sh` (Debian package chromium).',
  );
}

const workerUrl = inject('workerUrl');
const allowedOrigin = inject('allowedPageOrigin');
const refusedOrigin = inject('refusedPageOrigin');

async function mintViewerToken(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'demo', role: 'viewer', iat: now, exp: now + 600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(inject('sessionSecret')));
}

function pageUrl(origin: string, params: Record<string, string>): string {
  return `${origin}/section-source.html#${new URLSearchParams(params).toString()}`;
}

interface PageRun {
  page: Page;
  state: string;
  status: string;
  items: string[];
  consoleMessages: string[];
  dialogs: string[];
  /** Access-Control-Allow-Origin of every Worker response the page received. */
  workerAllowOrigins: Array<string | null>;
}

// In CI a missing browser is a failed test (counted in the CI summary), never a silent skip.
it('headless Chromium is present wherever the browser tests are required (CI)', () => {
  expect(chromiumPresent || !inCi, `${CHROMIUM_PATH} is missing in CI; .ci/run must install it (scripts/ensure-chromium.sh)`).toBe(
    true,
  );
});

describe.skipIf(!chromiumPresent)('headless Chromium against the Worker', () => {
  let browser: Browser;
  let token: string;
  const openPages: Page[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    token = await mintViewerToken();
  });

  afterAll(async () => {
    for (const page of openPages) await page.close().catch(() => {});
    await browser?.close();
  });

  /** Loads the page and waits until it reports a final state (done or error). */
  async function runPage(origin: string, params: Record<string, string>): Promise<PageRun> {
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    openPages.push(page);
    const consoleMessages: string[] = [];
    const dialogs: string[] = [];
    const workerAllowOrigins: Array<string | null> = [];
    page.on('console', (message) => consoleMessages.push(message.text()));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('response', (response) => {
      if (response.url().startsWith(`${workerUrl}/api/`) && response.request().method() === 'GET') {
        workerAllowOrigins.push(response.headers()['access-control-allow-origin'] ?? null);
      }
    });
    // Any script smuggled in through heading text would most likely call alert; make that observable
    // even if a future page swallowed dialogs.
    await page.addInitScript(() => {
      const flagged = window as unknown as { __injectedScriptRan?: boolean };
      window.alert = () => {
        flagged.__injectedScriptRan = true;
      };
    });
    await page.goto(pageUrl(origin, params));
    await page.waitForSelector('body[data-state="done"], body[data-state="error"]');
    return {
      page,
      state: (await page.getAttribute('body', 'data-state')) ?? '',
      status: (await page.textContent('#status')) ?? '',
      items: await page.locator('#sections > li').allTextContents(),
      consoleMessages,
      dialogs,
      workerAllowOrigins,
    };
  }

  it('an allowed origin renders every section heading as inert text', async () => {
    const expected = await fetch(`${workerUrl}/api/v1/section-source?path=${encodeURIComponent(HOSTILE_NOTE)}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(expected.status).toBe(200);
    const payload = (await expected.json()) as { title: string; sections: Array<{ heading_text: string }> };
    const headingTexts = payload.sections.map((section) => section.heading_text);
    expect(headingTexts.filter((text) => SCRIPT_HEADING.test(text))).toHaveLength(1);
    expect(headingTexts.filter((text) => IMG_ONERROR_HEADING.test(text))).toHaveLength(1);

    const run = await runPage(allowedOrigin, { worker: workerUrl, path: HOSTILE_NOTE, token });
    await run.page.screenshot({ path: SCREENSHOT_PATH, fullPage: true });

    expect(run.state, run.status).toBe('done');
    expect(run.status).toBe(`${headingTexts.length} sections`);
    expect(run.items).toEqual(headingTexts);
    expect(await run.page.textContent('#note-title')).toBe(payload.title);
    // The Worker granted exactly this origin.
    expect(run.workerAllowOrigins).toEqual([allowedOrigin]);
    // The markup in the headings stayed text: no element was created from it and nothing ran.
    expect(await run.page.locator('#sections script, #sections img, #sections h3').count()).toBe(0);
    expect(await run.page.locator('#sections > li').evaluateAll((items) => items.every((li) => li.childElementCount === 0))).toBe(
      true,
    );
    expect(run.dialogs).toEqual([]);
    expect(await run.page.evaluate(() => (window as unknown as { __injectedScriptRan?: boolean }).__injectedScriptRan)).toBeUndefined();
  });

  it('an allowed origin can read the Worker error code when the token is missing', async () => {
    const run = await runPage(allowedOrigin, { worker: workerUrl, path: HOSTILE_NOTE });
    expect(run.state).toBe('error');
    expect(run.status).toBe('HTTP 401 UNAUTHORIZED: Unauthorized');
    expect(run.items).toEqual([]);
    expect(run.workerAllowOrigins).toEqual([allowedOrigin]);
  });

  it('an origin that is not allowed is refused by CORS before the page sees any data', async () => {
    const run = await runPage(refusedOrigin, { worker: workerUrl, path: HOSTILE_NOTE, token });
    expect(run.state).toBe('error');
    expect(await run.page.getAttribute('body', 'data-error-name')).toBe('TypeError');
    expect(run.status).toMatch(/^Request failed: TypeError: /);
    expect(run.items).toEqual([]);
    // Chromium names the reason on the console; the message may trail the rejected fetch slightly.
    await expect
      .poll(() => run.consoleMessages.some((text) => /blocked by CORS policy/.test(text) && text.includes(refusedOrigin)))
      .toBe(true);
  });

  it('the preflight grants the allowed origin and nothing to the refused one', async () => {
    const preflight = (origin: string) =>
      fetch(`${workerUrl}/api/v1/section-source?path=x.md`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
      });
    const allowed = await preflight(allowedOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/\bAuthorization\b/);
    const refused = await preflight(refusedOrigin);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(refused.headers.get('access-control-allow-headers')).toBeNull();
  });
});

/** A note seeded for the explorer test: every heading is markup that would run code if parsed as HTML. */
const EXPLORER_NOTE = 'inbox/explorer-hostile-headings.md';
const HOSTILE_HEADINGS = [
  '<img src=x onerror="window.__explorerPwned=1;alert(1)">',
  '<script>window.__explorerPwned=2</script>',
  '</summary></details><b id="injected" onmouseover="alert(3)">bold</b>',
  '"><svg onload=alert(4)>',
];
const EXPLORER_BODY = [
  `# ${HOSTILE_HEADINGS[0]}`,
  'Intro paragraph.',
  `## ${HOSTILE_HEADINGS[1]}`,
  'Text.',
  `### ${HOSTILE_HEADINGS[2]}`,
  'More text.',
  `## ${HOSTILE_HEADINGS[3]}`,
  '',
].join('\n\n');

describe.skipIf(!chromiumPresent)('the explorer page of npm start, in headless Chromium', () => {
  const explorerUrl = inject('explorerUrl');
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const workerAllowOrigins: Array<string | null> = [];
  let headingTexts: string[];
  let expected: {
    outline: { title: string; headings: Array<{ level: number; text: string; id: string }> };
    sections: { sections: Array<{ section_id: string; heading_text: string }> };
    facets: { facets: { tags: string[] } };
  };

  beforeAll(async () => {
    const seeded = await fetch(`${inject('canisterUrl')}/__control/notes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Gateway-Auth': inject('canisterSecret') },
      body: JSON.stringify({
        user: 'demo',
        vault: 'default',
        notes: [{ path: EXPLORER_NOTE, frontmatter: { title: '<i>Hostile</i> headings', tags: ['<b>tag</b>', 'ok'] }, body: EXPLORER_BODY }],
      }),
    });
    expect(seeded.status).toBe(200);
    const token = await mintViewerToken();
    const read = async (route: string) => {
      const response = await fetch(`${workerUrl}/api/v1/${route}?path=${encodeURIComponent(EXPLORER_NOTE)}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      return response.json();
    };
    expected = { outline: await read('note-outline'), sections: await read('section-source'), facets: await read('metadata-facets') };
    // The Worker's plain text keeps the markup (it may space inline HTML apart); each is still live markup.
    headingTexts = expected.outline.headings.map((heading) => heading.text);
    expect(headingTexts).toHaveLength(HOSTILE_HEADINGS.length);
    expect(headingTexts[0]).toBe(HOSTILE_HEADINGS[0]);
    for (const text of headingTexts) expect(text).toMatch(/<[a-z/]/);

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('response', (response) => {
      if (response.url().startsWith(`${workerUrl}/api/`) && response.request().method() === 'GET') {
        workerAllowOrigins.push(response.headers()['access-control-allow-origin'] ?? null);
      }
    });
  });

  afterAll(async () => {
    await page?.close().catch(() => {});
    await browser?.close();
  });

  const panelTexts = (panel: string) => page.locator(`#panel-${panel} .tree .text`).allTextContents();
  const panelIds = (panel: string) => page.locator(`#panel-${panel} .tree .id`).allTextContents();

  it('draws outline, tree, sections and facets of a hostile note, with heading markup shown as text', async () => {
    const response = await page.goto(`${explorerUrl}/#${new URLSearchParams({ path: EXPLORER_NOTE })}`);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await page.waitForSelector('body[data-state="done"], body[data-state="error"]');
    expect(await page.textContent('#status')).toBe('4 routes answered 200');
    expect(await page.getAttribute('body', 'data-state')).toBe('done');

    // The note list comes from the canister via npm start's explorer server, and marks the open note.
    expect(await page.locator('#note-list button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-path')))).toContain(
      EXPLORER_NOTE,
    );
    expect(await page.getAttribute(`#note-list button[data-path="${EXPLORER_NOTE}"]`, 'aria-current')).toBe('true');
    expect(await page.textContent('#note-title')).toBe(expected.outline.title);

    // Every heading appears verbatim, as text, with its level and id, in outline, tree and sections.
    expect(await panelTexts('note-outline')).toEqual(headingTexts);
    expect(await panelTexts('document-tree')).toEqual(headingTexts);
    expect(await panelTexts('section-source')).toEqual(headingTexts);
    expect(await panelIds('note-outline')).toEqual(expected.outline.headings.map((heading) => `#${heading.id}`));
    expect(await panelIds('section-source')).toEqual(expected.sections.sections.map((section) => `#${section.section_id}`));
    expect(await page.locator('#panel-note-outline .level').allTextContents()).toEqual(
      expected.outline.headings.map((heading) => `H${heading.level}`),
    );
    // The tree nests: H1 > H2 > H3, and the second H2 is a sibling of the first.
    expect(await page.locator('#panel-document-tree .tree > ul > li > details > ul > li').count()).toBe(2);
    expect(await page.locator('#panel-document-tree details details details').count()).toBe(0);
    expect(await page.locator('#panel-document-tree details details .leaf .text').allTextContents()).toEqual([headingTexts[2]]);
    // Facet values are text too.
    expect(expected.facets.facets.tags).toHaveLength(2);
    expect(await page.locator('#panel-metadata-facets .value').allTextContents()).toEqual(expect.arrayContaining(expected.facets.facets.tags));

    // Nothing in the markup became an element, and nothing ran.
    expect(await page.locator('main img, main script, main svg, main b, main i, #injected').count()).toBe(0);
    expect(await page.locator('main .text').evaluateAll((nodes) => nodes.every((node) => node.childElementCount === 0))).toBe(true);
    expect(dialogs).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __explorerPwned?: number }).__explorerPwned)).toBeUndefined();
    // The page called the Worker cross-origin, once per route, and the Worker granted its origin.
    expect(workerAllowOrigins).toEqual([explorerUrl, explorerUrl, explorerUrl, explorerUrl]);

    mkdirSync(path.dirname(EXPLORER_SCREENSHOT_PATH), { recursive: true });
    await page.screenshot({ path: EXPLORER_SCREENSHOT_PATH, fullPage: true });
  });

  it('collapses and expands a subtree', async () => {
    const firstNode = page.locator('#panel-document-tree .tree > ul > li > details').first();
    const nested = page.locator('#panel-document-tree .tree > ul > li > details > ul').first();
    expect(await nested.isVisible()).toBe(true);
    await firstNode.locator('> summary').click();
    expect(await firstNode.getAttribute('open')).toBeNull();
    expect(await nested.isVisible()).toBe(false);
    await page.click('#expand-all');
    expect(await nested.isVisible()).toBe(true);
  });

  it('opens another note from the list and filters the list', async () => {
    await page.click('#note-list button[data-path="projects/Aurora/roadmap.md"]');
    await page.waitForFunction(() => document.body.dataset.state === 'done' && document.getElementById('note-path')?.textContent === 'projects/Aurora/roadmap.md');
    expect(await page.locator('#panel-note-outline .tree .text').count()).toBeGreaterThan(3);
    await page.fill('#filter', 'roadmap');
    expect(await page.locator('#note-list button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-path')))).toEqual([
      'projects/Aurora/roadmap.md',
    ]);
  });

  it('shows the Worker error code for a note that does not exist', async () => {
    await page.goto(`${explorerUrl}/#${new URLSearchParams({ path: 'inbox/no-such-note.md' })}`);
    await page.reload();
    await page.waitForSelector('body[data-state="error"]');
    expect(await page.textContent('#status')).toBe('4 of 4 routes failed: NOT_FOUND');
    expect(await page.textContent('#panel-note-outline .panel-status')).toBe('HTTP 404 NOT_FOUND: Not found');
  });
});

describe('the explorer page server', () => {
  const explorerUrl = inject('explorerUrl');

  it('serves the page with a strict CSP and the session only to its own Host', async () => {
    const pageResponse = await fetch(`${explorerUrl}/`);
    expect(pageResponse.status).toBe(200);
    const csp = pageResponse.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ${workerUrl}`);
    expect(pageResponse.headers.get('access-control-allow-origin')).toBeNull();
    const session = (await (await fetch(`${explorerUrl}/session.json`)).json()) as { workerUrl: string; notes: string[] };
    expect(session.workerUrl).toBe(workerUrl);
    expect(session.notes).toContain('projects/Aurora/roadmap.md');
    const { port } = new URL(explorerUrl);
    const rebound = await new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, path: '/session.json', headers: { Host: `attacker.example:${port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    expect(rebound).toBe(421);
    expect((await fetch(`${explorerUrl}/../package.json`)).status).toBe(404);
    expect((await fetch(`${explorerUrl}/server.mjs`)).status).toBe(404);
    expect((await fetch(`${explorerUrl}/session.json`, { method: 'POST' })).status).toBe(405);
  });
});
