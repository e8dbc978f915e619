// @ts-check
/**
 * Builds the MCP Apps view, assets/mcp-view.html: one self-contained HTML page (SEP-1865 requires
 * a single HTML5 document) made of view/mcp-view.html with the explorer's renderer
 * (demo/explorer/render.css, render.js) and the view's own style and script inlined. The page's
 * CSP allows no network and only these exact inline script and style blocks (by their SHA-256).
 * The Worker serves the file from its static assets (wrangler.toml [assets]), so it stays out of
 * the bundle.
 *
 *   npm run build:view            writes assets/mcp-view.html
 *   npm run build:view -- --check exits 1 when the file is not what the sources build
 *
 * test/scripts/mcp-view-build.test.ts keeps the committed file equal to a fresh build.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const VIEW_OUTPUT = path.join(ROOT, 'assets', 'mcp-view.html');
/** The view's sources, in the order they are inlined. */
export const VIEW_SOURCES = {
  template: 'view/mcp-view.html',
  styles: ['demo/explorer/render.css', 'view/mcp-view.css'],
  scripts: ['demo/explorer/render.js', 'view/mcp-view.js'],
};

const read = (/** @type {string} */ file) => readFileSync(path.join(ROOT, file), 'utf8');
const sha256 = (/** @type {string} */ text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Joins sources for one inline block; a closing tag inside one would end the block early, so it is refused. */
function inline(/** @type {string[]} */ files, /** @type {string} */ tag) {
  const text = files.map(read).join('\n');
  if (text.toLowerCase().includes(`</${tag}`)) throw new Error(`build-mcp-view: a source contains </${tag}`);
  return `\n${text}`;
}

/** The view page, as the sources build it now. */
export function buildMcpView() {
  const style = inline(VIEW_SOURCES.styles, 'style');
  const script = inline(VIEW_SOURCES.scripts, 'script');
  const csp = ["default-src 'none'", `script-src ${sha256(script)}`, `style-src ${sha256(style)}`, "base-uri 'none'", "form-action 'none'"].join('; ');
  const pieces = { CSP: csp, STYLE: style, SCRIPT: script };
  return read(VIEW_SOURCES.template).replace(/\{\{(CSP|STYLE|SCRIPT)\}\}/g, (_match, name) => pieces[/** @type {keyof typeof pieces} */ (name)]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = buildMcpView();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(VIEW_OUTPUT, 'utf8');
    } catch {
      current = '';
    }
    if (current !== built) {
      console.error('assets/mcp-view.html is not current: run npm run build:view');
      process.exit(1);
    }
    console.log('assets/mcp-view.html is current');
  } else {
    writeFileSync(VIEW_OUTPUT, built);
    console.log(`wrote assets/mcp-view.html (${Buffer.byteLength(built)} bytes)`);
  }
}
