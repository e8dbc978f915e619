// A real browser against the real Worker: headless Chromium (Debian `chromium`, driven by
// playwright-core) loads test/e2e/fixtures/section-source.html from a page server whose origin is
// in CORS_ORIGINS, and the page fetches /api/v1/section-source cross-origin with a bearer token and
// renders the headings as text. The same page from an origin that is not allowed must be refused
// by the browser's CORS check. See test/support/node/e2e-setup.ts for the servers.
//
// The explorer page of `npm start` (demo/explorer/) is driven the same way: hostile heading markup
// stays text, right-to-left and CJK notes render readably (screenshots under test-results/), a
// #path= link reveals its note in a list of thousands, and 30 notes clicked through in under a
// minute stay inside the production rate limit, on a second Worker that runs wrangler.toml's own
// limit as npm start does (the shared e2e Worker runs the `load` environment, whose limit no test meets).
//
// Without /usr/bin/chromium the suite is skipped with a warning, except in CI (CI=true), where it
// fails: CI installs the browser with scripts/ensure-chromium.sh.
import { existsSync, mkdirSync } from 'node:fs';
import { freePort, startLocalWorker, type WranglerWorker } from '../support/node/local-worker';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request as httpRequest } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startExplorer, type Explorer } from '../../demo/explorer/server.mjs';
import { mintViewerToken } from '../../scripts/token.mjs';

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
/**
 * Closes a page once its fetches have ended: a page closed while the Worker still writes an answer
 * makes workerd log a broken pipe, which would read as an error in a passing run.
 */
async function closeWhenIdle(page: Page | undefined): Promise<void> {
  if (!page) return;
  await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {});
  await page.close().catch(() => {});
}
const SCREENSHOT_PATH = '/tmp/knowtation-edge-e2e-section-source.png';
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Screenshots of the explorer page; test-results/ is gitignored. */
const EXPLORER_SCREENSHOT_PATH = path.join(REPO_ROOT, 'test-results', 'explorer.png');
const RTL_SCREENSHOT_PATH = path.join(REPO_ROOT, 'test-results', 'explorer-rtl.png');
const CJK_SCREENSHOT_PATH = path.join(REPO_ROOT, 'test-results', 'explorer-cjk.png');

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
const viewerToken = () => mintViewerToken('demo', 600, inject('sessionSecret'));

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
    token = await viewerToken();
  });

  afterAll(async () => {
    for (const page of openPages) await closeWhenIdle(page);
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
    const token = await viewerToken();
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
    await closeWhenIdle(page);
    await browser?.close();
  });

  const panelTexts = (panel: string) => page.locator(`#panel-${panel} .tree .text`).allTextContents();
  const panelIds = (panel: string) => page.locator(`#panel-${panel} .tree .id`).allTextContents();

  it('draws outline, tree, sections and facets of a hostile note, with heading markup shown as text', async () => {
    const response = await page.goto(`${explorerUrl}/#${new URLSearchParams({ path: EXPLORER_NOTE })}`);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await page.waitForSelector('body[data-state="done"], body[data-state="error"]');
    // Only the outline card is open at first, and only it was requested; a closed card says what opening it costs.
    expect(await page.textContent('#status')).toBe('1 route answered 200');
    expect(workerAllowOrigins).toEqual([explorerUrl]);
    expect(await page.textContent('#panel-metadata-facets .card-cost')).toBe('closed, not requested: open it to fetch (1 request per note)');
    for (const route of ['document-tree', 'section-source', 'metadata-facets']) await page.click(`#panel-${route} .card-toggle`);
    await page.waitForFunction(() => document.body.dataset.state === 'done' && document.getElementById('status')?.textContent === '4 routes answered 200');
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
    // Each card says in one line what its values mean, and shows all of its content: the page scrolls, not the card.
    for (const route of ['note-outline', 'document-tree', 'section-source', 'metadata-facets']) {
      expect((await page.textContent(`#panel-${route} .legend`))?.length).toBeGreaterThan(40);
      expect(await cardScrolls(page, route)).toBe(false);
    }

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

  it('opens another note from the list and filters the list; showing a note again costs no request', async () => {
    await page.click('#note-list button[data-path="projects/Aurora/roadmap.md"]');
    await page.waitForFunction(() => document.body.dataset.state === 'done' && document.getElementById('note-path')?.textContent === 'projects/Aurora/roadmap.md');
    expect(await page.locator('#panel-note-outline .tree .text').count()).toBeGreaterThan(3);
    const calls = workerAllowOrigins.length;
    await page.click(`#note-list button[data-path="${EXPLORER_NOTE}"]`);
    await page.waitForFunction((notePath) => document.body.dataset.state === 'done' && document.getElementById('note-path')?.textContent === notePath, EXPLORER_NOTE);
    expect(await panelTexts('note-outline')).toEqual(headingTexts);
    expect(workerAllowOrigins.length).toBe(calls);
    await page.fill('#filter', 'roadmap');
    expect(await page.locator('#note-list button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-path')))).toEqual([
      'projects/Aurora/roadmap.md',
    ]);
  });

  it('says "No note at this path" for a note that does not exist, with the Worker error code beside it', async () => {
    await page.goto(`${explorerUrl}/#${new URLSearchParams({ path: 'inbox/no-such-note.md' })}`);
    await page.reload();
    await page.waitForSelector('body[data-state="error"]');
    // The four cards opened above are remembered across the reload.
    expect(await page.textContent('#status')).toBe('No note at this path.');
    expect(await page.textContent('#panel-note-outline .panel-status')).toBe('No note at this path. (HTTP 404 NOT_FOUND)');
  });
});

/** Stores notes in the demo user's default vault of the shared canister (its test control API). */
async function seedNotes(notes: Array<{ path: string; frontmatter?: unknown; body?: string }>): Promise<void> {
  const seeded = await fetch(`${inject('canisterUrl')}/__control/notes`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Gateway-Auth': inject('canisterSecret') },
    body: JSON.stringify({ user: 'demo', vault: 'default', notes }),
  });
  expect(seeded.status).toBe(200);
}

function explorerLink(base: string, notePath: string): string {
  return `${base}/#${new URLSearchParams({ path: notePath })}`;
}

/** Waits until the explorer shows this note with every open card drawn (done or error). */
async function waitForNote(page: Page, notePath: string): Promise<void> {
  await page.waitForFunction(
    (wanted) => ['done', 'error'].includes(document.body.dataset.state ?? '') && document.getElementById('note-path')?.textContent === wanted,
    notePath,
  );
}

/** Opens every closed card of the explorer and waits until the note is drawn again. */
async function openAllCards(page: Page, notePath: string): Promise<void> {
  const closed = page.locator('.card-toggle[aria-expanded="false"]');
  while ((await closed.count()) > 0) await closed.first().click();
  await waitForNote(page, notePath);
}

/** True when a card clips or scrolls its own content; it must not: the page scrolls. */
function cardScrolls(page: Page, route: string): Promise<boolean> {
  return page.$eval(`#panel-${route}`, (card) => {
    const style = getComputedStyle(card);
    return style.overflowY !== 'visible' || style.maxHeight !== 'none' || card.scrollHeight > card.clientHeight + 1;
  });
}

/** The left edges of a card's heading ids, in pixels (one value when they form a column). */
function idColumnLefts(page: Page, route: string): Promise<number[]> {
  return page.$$eval(`#panel-${route} .tree .id`, (ids) => [...new Set(ids.map((id) => Math.round(id.getBoundingClientRect().left)))]);
}

/**
 * The characters of the matched elements that the browser draws as the missing-glyph box: each is
 * drawn in the element's own font and compared with a code point no font covers (U+10FFFD).
 */
function missingGlyphs(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (nodes) => {
    const canvas = document.createElement('canvas');
    canvas.width = 48;
    canvas.height = 48;
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) return ['(no canvas)'];
    const missing = new Set<string>();
    for (const node of nodes) {
      const font = `32px ${getComputedStyle(node).fontFamily}`;
      const draw = (text: string): number => {
        context.clearRect(0, 0, 48, 48);
        context.font = font;
        context.fillText(text, 4, 36);
        const data = context.getImageData(0, 0, 48, 48).data;
        let hash = 0;
        for (let at = 3; at < data.length; at += 4) hash = (Math.imul(hash, 31) + data[at]) | 0;
        return hash;
      };
      const box = draw('\u{10FFFD}');
      for (const char of new Set(node.textContent ?? '')) if (char.trim() !== '' && draw(char) === box) missing.add(char);
    }
    return [...missing];
  });
}

/** Direction facts of a note-derived text element: its dir attribute, resolved direction and bidi isolation. */
function bidiOf(page: Page, selector: string): Promise<Array<{ text: string; dir: string | null; direction: string; bidi: string }>> {
  return page.$$eval(selector, (nodes) =>
    nodes.map((node) => ({
      text: node.textContent ?? '',
      dir: node.getAttribute('dir'),
      direction: getComputedStyle(node).direction,
      bidi: getComputedStyle(node).unicodeBidi,
    })),
  );
}

/**
 * The path shown under the title: its text, and whether its pieces (folders, file stem, extension)
 * sit left to right in path order, whatever their script.
 */
function notePathLayout(page: Page): Promise<{ text: string; pieces: string[]; leftToRight: boolean }> {
  return page.$eval('#note-path', (node) => {
    const pieces = Array.from(node.querySelectorAll('bdi, .ext'));
    const lefts = pieces.map((piece) => piece.getBoundingClientRect().left);
    return {
      text: node.textContent ?? '',
      pieces: pieces.map((piece) => piece.textContent ?? ''),
      leftToRight: lefts.every((left, index) => index === 0 || left > lefts[index - 1]),
    };
  });
}

/** Fonts are part of a readable screenshot: CI must have them (scripts/ensure-chromium.sh); elsewhere a warning. */
function expectGlyphs(missing: string[], script: string, fontPackage: string): void {
  if (missing.length === 0) return;
  const message = `${script} characters drawn as missing-glyph boxes (${missing.join(' ')}): install the Debian font package ${fontPackage}`;
  if (inCi) expect.fail(message);
  console.warn(`browser.test.ts: ${message}; the ${script} screenshot is not readable on this machine.`);
}

/** A note in a right-to-left script: Arabic folder and file name, Arabic and Hebrew headings mixed with Latin and digits. */
const RTL_NOTE = 'e2e-scripts/ملاحظات/خطة المشروع.md';
const RTL_BODY = [
  '# مقدمة المشروع',
  'نص.',
  '## المرحلة 1: جمع البيانات (API)',
  'نص.',
  '### שלב ב׳: בדיקות 2026',
  'טקסט.',
  '## الخاتمة',
  '# English heading after the RTL ones',
  'Text.',
  '',
].join('\n\n');
/** A note in CJK scripts: Japanese folder and file name, Japanese, Chinese and Korean headings, one long enough to wrap. */
const CJK_NOTE = 'e2e-scripts/筆記/日本語のノート.md';
const CJK_BODY = [
  '# 概要',
  '本文。',
  '## 决定事项与下一步',
  '文字。',
  '### 한국어 제목',
  '내용.',
  '## 東京オフィスの移転計画について長い見出しが折り返されるかどうかを確認するためのテキスト',
  '本文。',
  '',
].join('\n\n');

describe.skipIf(!chromiumPresent)('the explorer on notes in right-to-left and CJK scripts', () => {
  const explorerUrl = inject('explorerUrl');
  let browser: Browser;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    await seedNotes([
      { path: RTL_NOTE, frontmatter: { title: 'خطة المشروع 2026', tags: ['تخطيط', 'q3', 'planning', 'planning'], project: 'مشروع' }, body: RTL_BODY },
      { path: CJK_NOTE, frontmatter: { title: '会議メモ：第3四半期', tags: ['会議', 'q3', '东京'] }, body: CJK_BODY },
    ]);
    token = await viewerToken();
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  });

  afterAll(async () => {
    await closeWhenIdle(page);
    await browser?.close();
  });

  async function outlineOf(notePath: string): Promise<{ title: string; headings: Array<{ level: number; text: string; id: string }> }> {
    const response = await fetch(`${workerUrl}/api/v1/note-outline?path=${encodeURIComponent(notePath)}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return response.json() as Promise<{ title: string; headings: Array<{ level: number; text: string; id: string }> }>;
  }

  /** Opens the note with every card, checks what every script needs, and saves a full-page screenshot. */
  async function drawAndCheck(notePath: string, screenshot: string): Promise<{ title: string; headings: Array<{ level: number; text: string; id: string }> }> {
    const outline = await outlineOf(notePath);
    await page.goto(explorerLink(explorerUrl, notePath));
    await waitForNote(page, notePath);
    await openAllCards(page, notePath);
    expect(await page.textContent('#status')).toBe('4 routes answered 200');
    expect(await page.textContent('#note-title')).toBe(outline.title);
    const texts = outline.headings.map((heading) => heading.text);
    expect(await page.locator('#panel-note-outline .tree .text').allTextContents()).toEqual(texts);
    expect(await page.locator('#panel-section-source .tree .text').allTextContents()).toEqual(texts);
    // The path reads left to right as folders / stem .md, each piece in its own direction.
    const layout = await notePathLayout(page);
    const segments = notePath.split('/');
    const file = segments.pop() ?? '';
    expect(layout.text).toBe(notePath);
    expect(layout.pieces).toEqual([...segments, file.replace(/\.md$/, ''), '.md']);
    expect(layout.leftToRight).toBe(true);
    // The list marks the note; its button holds the same isolated pieces.
    expect(await page.getAttribute(`#note-list button[data-path="${notePath}"]`, 'aria-current')).toBe('true');
    // Ids form one column in each heading card, at every depth.
    for (const route of ['note-outline', 'document-tree', 'section-source']) {
      expect(await idColumnLefts(page, route)).toHaveLength(1);
      expect(await cardScrolls(page, route)).toBe(false);
    }
    mkdirSync(path.dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: true });
    return outline;
  }

  it('an Arabic and Hebrew note: headings and path keep their direction, isolated from the page', async () => {
    const outline = await drawAndCheck(RTL_NOTE, RTL_SCREENSHOT_PATH);
    const rows = await bidiOf(page, '#panel-note-outline .tree .text');
    expect(rows.map((row) => row.dir)).toEqual(outline.headings.map(() => 'auto'));
    expect(rows.every((row) => row.bidi === 'isolate')).toBe(true);
    // The four Arabic and Hebrew headings resolve right to left; the English one after them stays left to right.
    expect(rows.map((row) => row.direction)).toEqual(['rtl', 'rtl', 'rtl', 'rtl', 'ltr']);
    expect((await bidiOf(page, '#note-title'))[0]).toMatchObject({ dir: 'auto', direction: 'rtl', bidi: 'isolate' });
    expect((await bidiOf(page, '#note-path bdi')).map((piece) => piece.direction)).toEqual(['ltr', 'rtl', 'rtl']);
    // Ids are ASCII: a heading in another script has the slug `heading`.
    expect(outline.headings[0].id).toBe('h1-heading-0001');
    // Facets keep repeated tags and drop a tag with no slug character: the contract's own answer, shown as is.
    expect(await page.locator('#panel-metadata-facets .facet-row:has(.key:text-is("tags")) .value').allTextContents()).toEqual([
      'q3',
      'planning',
      'planning',
    ]);
    expectGlyphs(await missingGlyphs(page, '#panel-note-outline .tree .text, #note-title, #note-path'), 'Arabic and Hebrew', 'fonts-dejavu-core');
  });

  it('a Japanese, Chinese and Korean note: headings and path render in CJK fonts, a long heading wraps inside its card', async () => {
    const outline = await drawAndCheck(CJK_NOTE, CJK_SCREENSHOT_PATH);
    expect(outline.headings.map((heading) => heading.id)).toEqual(['h1-heading-0001', 'h2-heading-0002', 'h3-heading-0003', 'h2-heading-0004']);
    // The long heading wraps within its column instead of widening the card past the page.
    const overflow = await page.$eval('main', (main) => main.scrollWidth > main.clientWidth);
    expect(overflow).toBe(false);
    expectGlyphs(await missingGlyphs(page, '#panel-note-outline .tree .text, #note-title, #note-path'), 'CJK', 'fonts-noto-cjk');
  });
});

/** Enough notes that the list must scroll to show one from its end. */
const BULK_NOTES = 3_000;
const bulkPath = (index: number) => `e2e-bulk/${String(index).padStart(4, '0')} note.md`;

describe.skipIf(!chromiumPresent)('a #path= link in a vault of thousands of notes', () => {
  const explorerUrl = inject('explorerUrl');
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await seedNotes(Array.from({ length: BULK_NOTES }, (_, index) => ({ path: bulkPath(index), body: `# Note ${index}\n` })));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  });

  afterAll(async () => {
    await closeWhenIdle(page);
    await browser?.close();
  });

  /** Whether the note's button is marked current and lies inside the visible part of the scrolled note list. */
  function revealed(notePath: string): Promise<{ current: string | null; visible: boolean; listScrolled: number }> {
    return page.$eval(
      '#notes',
      (nav, wanted) => {
        const button = Array.from(nav.querySelectorAll('button[data-path]')).find((candidate) => candidate.getAttribute('data-path') === wanted);
        if (!button) return { current: null, visible: false, listScrolled: nav.scrollTop };
        const box = button.getBoundingClientRect();
        const view = nav.getBoundingClientRect();
        const visible = box.top >= view.top && box.bottom <= view.bottom && box.bottom <= window.innerHeight;
        return { current: button.getAttribute('aria-current'), visible, listScrolled: nav.scrollTop };
      },
      notePath,
    );
  }

  it('opening a #path= link selects its note and scrolls the list to it; a new link in the same tab does too', async () => {
    const deep = bulkPath(2_400);
    await page.goto(explorerLink(explorerUrl, deep));
    await waitForNote(page, deep);
    expect(await page.locator('#note-list button').count()).toBeGreaterThan(BULK_NOTES);
    const first = await revealed(deep);
    expect(first).toMatchObject({ current: 'true', visible: true });
    expect(first.listScrolled).toBeGreaterThan(1_000);
    expect(await page.textContent('#note-title')).toBe('2400 note');

    // A link followed inside the page (hashchange, no reload).
    const other = bulkPath(150);
    await page.evaluate((hash) => {
      location.hash = hash;
    }, new URLSearchParams({ path: other }).toString());
    await waitForNote(page, other);
    expect(await revealed(other)).toMatchObject({ current: 'true', visible: true });
    expect(await page.getAttribute(`#note-list button[data-path="${deep}"]`, 'aria-current')).toBe('false');
  });

  it('the filter stays in view above a scrolled list of thousands', async () => {
    const deep = bulkPath(2_900);
    await page.goto(explorerLink(explorerUrl, deep));
    await waitForNote(page, deep);
    const box = await page.$eval('#notes', (nav) => {
      const filter = document.getElementById('filter')!.getBoundingClientRect();
      const count = document.getElementById('note-count')!.getBoundingClientRect();
      const view = nav.getBoundingClientRect();
      // The element drawn at the filter's centre is the filter itself, not a note button scrolled over it.
      const onTop = document.elementFromPoint(filter.left + filter.width / 2, filter.top + filter.height / 2);
      return { scrolled: nav.scrollTop, filterTop: filter.top, countBottom: count.bottom, viewTop: view.top, viewBottom: view.bottom, filterOnTop: onTop?.id === 'filter' };
    });
    expect(box.scrolled).toBeGreaterThan(1_000);
    expect(box.filterTop).toBeGreaterThanOrEqual(box.viewTop);
    expect(box.countBottom).toBeLessThanOrEqual(box.viewBottom);
    expect(box.filterOnTop).toBe(true);
    // Typing into it still filters the list.
    await page.fill('#filter', '2899');
    await expect.poll(() => page.locator('#note-list button').count()).toBe(1);
    await page.fill('#filter', '');
  });

  it('Expand all opens and fetches every card of the note it was pressed on, one request each, none once kept, and not the next note\'s', async () => {
    const notePath = bulkPath(7);
    const fetched: string[] = [];
    const onResponse = (response: { url(): string; request(): { method(): string } }) => {
      if (response.url().startsWith(`${workerUrl}/api/`) && response.request().method() === 'GET') fetched.push(new URL(response.url()).pathname);
    };
    page.on('response', onResponse);
    try {
      await page.goto(explorerLink(explorerUrl, notePath));
      await waitForNote(page, notePath);
      // Only the outline card is open in a fresh browser.
      expect(await page.locator('.card-toggle[aria-expanded="true"]').count()).toBe(1);
      const before = fetched.length;
      await page.click('#expand-all');
      await page.waitForFunction(() => document.body.dataset.state === 'done' && document.getElementById('status')?.textContent === '4 routes answered 200');
      expect(await page.locator('.card-toggle[aria-expanded="true"]').count()).toBe(4);
      expect(fetched.slice(before).sort()).toEqual(['/api/v1/document-tree', '/api/v1/metadata-facets', '/api/v1/section-source']);
      expect(await page.locator('.tree details').evaluateAll((nodes) => nodes.every((node) => (node as HTMLDetailsElement).open))).toBe(true);
      await page.click('#expand-all');
      expect(fetched.length).toBe(before + 3);
      // The next note opens with the outline only, as chosen card by card: one request, not four.
      const nextPath = bulkPath(8);
      await page.goto(explorerLink(explorerUrl, nextPath));
      await waitForNote(page, nextPath);
      expect(await page.locator('.card-toggle[aria-expanded="true"]').count()).toBe(1);
      expect(fetched.slice(before + 3).filter((route) => route !== '/api/v1/note-outline')).toEqual([]);
      // Back on the expanded note, its four cards come from the page's memory.
      const afterNext = fetched.length;
      await page.goto(explorerLink(explorerUrl, notePath));
      await page.waitForFunction(() => document.body.dataset.state === 'done' && document.getElementById('status')?.textContent === '4 routes answered 200');
      expect(fetched.length).toBe(afterNext);
    } finally {
      page.off('response', onResponse);
    }
  });

  it('the legends say in a user\'s words what each card shows, which keys facets read, and that a note is read by its exact path', async () => {
    expect(await page.textContent('#panel-note-outline .legend')).toMatch(/^Every heading of the note, in order, indented by level/);
    expect(await page.textContent('#panel-section-source .legend')).toContain('A section id is unique within its note only.');
    expect(await page.textContent('#panel-metadata-facets .legend')).toContain(
      "What the note's frontmatter says about it, from these keys only: project, tags, date, updated, causal_chain_id, entity, episode_id.",
    );
    expect(await page.textContent('#path-legend')).toBe('One note, read by its exact path (with .md): its structure only, never its text.');
    // The rules behind the values are for developers, in docs/MCP.md and demo/README.md, not on the page.
    const legends = (await page.locator('.legend').allTextContents()).join('\n');
    expect(legends).not.toMatch(/slug|a-z|Hub|contract|child_section_ids|<level>/);
  });
});

/** Notes for the click-through: enough for 30 distinct ones. */
const CLICK_NOTES = Array.from({ length: 36 }, (_, index) => ({
  path: `e2e-click/${String(index + 1).padStart(2, '0')} meeting.md`,
  frontmatter: { title: `Meeting ${index + 1}`, tags: ['meeting', `week-${index % 5}`] },
  body: ['# Agenda', 'Items.', '## Decisions', 'Some.', '### Follow-ups', 'Later.', '## Notes', 'More.', ''].join('\n\n'),
}));
/** The note list's order (sorted), as the canister lists notes. */
const CLICK_PATHS = CLICK_NOTES.map((note) => note.path).sort();



describe.skipIf(!chromiumPresent)('the explorer under the production rate limit, as npm start runs it', { timeout: 120_000 }, () => {
  let worker: WranglerWorker | undefined;
  let explorer: Explorer | undefined;
  let limitedUrl: string;
  let limit: number;
  let token: string;
  let browser: Browser;
  let page: Page;
  /** Status of every REST answer the page received from this Worker, in order. */
  const answers: number[] = [];

  beforeAll(async () => {
    await seedNotes(CLICK_NOTES);
    const { unstable_readConfig } = await import('wrangler');
    const config = path.join(REPO_ROOT, 'wrangler.toml');
    // wrangler.toml's top level, as `npm start` runs it (no --env): the production limit binding.
    const limiter = unstable_readConfig({ config }).ratelimits.find((binding: { name: string }) => binding.name === 'RATE_LIMITER');
    limit = Number(limiter?.simple?.limit);
    expect(limiter?.simple).toEqual({ limit: 60, period: 60 });
    worker = await startLocalWorker({
      port: await freePort(),
      vars: { ENVIRONMENT: 'local', CANISTER_URL: inject('canisterUrl') },
      secrets: { SESSION_SECRET: inject('sessionSecret'), CANISTER_AUTH_SECRET: inject('canisterSecret') },
    });
    limitedUrl = (await worker.url).origin;
    token = await viewerToken();
    explorer = await startExplorer({ workerUrl: limitedUrl, token, listNotes: () => CLICK_PATHS, vaultLabel: 'production limit' });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('response', (response) => {
      if (response.url().startsWith(`${limitedUrl}/api/`) && response.request().method() === 'GET') answers.push(response.status());
    });
  }, 180_000);

  afterAll(async () => {
    await closeWhenIdle(page);
    await browser?.close();
    await explorer?.close();
    await worker?.dispose();
  });

  it('30 notes clicked through in under a minute cost one request each and meet no 429; showing them again costs none', async () => {
    const started = Date.now();
    await page.goto(explorerLink(explorer!.url, CLICK_PATHS[0]));
    await waitForNote(page, CLICK_PATHS[0]);
    for (const notePath of CLICK_PATHS.slice(1, 30)) {
      await page.click(`#note-list button[data-path="${notePath}"]`);
      await waitForNote(page, notePath);
      expect(await page.getAttribute('body', 'data-state')).toBe('done');
    }
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(60_000);
    expect(answers.filter((status) => status === 429)).toEqual([]);
    // One open card (the outline), one request per note shown: 30 of this user's 60 a minute.
    expect(answers).toHaveLength(30);
    expect(answers.length).toBeLessThan(limit);
    expect(await page.getAttribute('#request-meter', 'data-count')).toBe('30');

    for (const notePath of CLICK_PATHS.slice(0, 10)) {
      await page.click(`#note-list button[data-path="${notePath}"]`);
      await waitForNote(page, notePath);
      expect(await page.getAttribute('body', 'data-state')).toBe('done');
    }
    expect(answers).toHaveLength(30);
  });

  it('after a 429 a card says when to retry and how to lift the limit, and the page sends nothing until then', async () => {
    // The local limiter counts in fixed windows of the period: start far enough from a window's end that it cannot reset mid-test.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 35_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 500));
    // Spend the rest of this user's minute outside the page (curl, an MCP client and the page share it).
    let refused: Response | undefined;
    for (let sent = 0; sent <= limit && !refused; sent++) {
      const response = await fetch(`${limitedUrl}/api/v1/note-outline?path=${encodeURIComponent(CLICK_PATHS[0])}`, {
        headers: { Authorization: `Bearer ${token}`, Origin: explorer!.url },
      });
      await response.body?.cancel();
      if (response.status === 429) refused = response;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('retry-after')).toBe('60');
    expect(refused?.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);

    const limited = CLICK_PATHS[30];
    await page.click(`#note-list button[data-path="${limited}"]`);
    await waitForNote(page, limited);
    expect(await page.getAttribute('body', 'data-state')).toBe('error');
    const cardStatus = (await page.textContent('#panel-note-outline .panel-status')) ?? '';
    expect(cardStatus).toMatch(/^HTTP 429 RATE_LIMITED: the Worker's per-user rate limit is used up \(production allows 60 a minute per user\): retry in \d+ s \(at [^)]+\); the page retries by itself then\. To lift it locally, restart with npm start -- --env load\.$/);
    expect(await page.textContent('#status')).toContain('npm start -- --env load');
    const seconds = Number(/retry in (\d+) s/.exec(cardStatus)?.[1]);
    expect(seconds).toBeGreaterThan(50);
    expect(seconds).toBeLessThanOrEqual(60);
    await page.screenshot({ path: path.join(REPO_ROOT, 'test-results', 'explorer-429.png') });

    // While the Worker asked to wait, another new note sends nothing and says why; a note already shown still shows.
    const sent = answers.length;
    const waiting = CLICK_PATHS[31];
    await page.click(`#note-list button[data-path="${waiting}"]`);
    await waitForNote(page, waiting);
    expect(await page.textContent('#panel-note-outline .panel-status')).toMatch(/^Not requested yet: the Worker's per-user rate limit is used up .*npm start -- --env load\.$/);
    await page.click(`#note-list button[data-path="${CLICK_PATHS[3]}"]`);
    await waitForNote(page, CLICK_PATHS[3]);
    expect(await page.getAttribute('body', 'data-state')).toBe('done');
    expect(answers.length).toBe(sent);
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
