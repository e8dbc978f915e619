/**
 * The MCP Apps view (SEP-1865, extension `io.modelcontextprotocol/ui`, revision 2026-01-26): one
 * `ui://` HTML resource that draws any contract's payload, named by every tool in
 * `_meta.ui.resourceUri` (and the deprecated flat `ui/resourceUri` key, as the extension's own
 * helpers set it). The page is assets/mcp-view.html (scripts/build-mcp-view.mjs), served from the
 * Worker's static assets through the ASSETS binding, so it costs the bundle nothing and reading it
 * costs no canister call.
 *
 * Which clients see what (docs/MCP.md, MCP Apps view): the server advertises the extension and
 * serves the resource to any client; tool definitions carry `_meta.ui` on 2025-era requests (a
 * stateless server has no session to remember the client's `initialize` capabilities in) and on
 * 2026-07-28 requests whose per-request capabilities declare the extension with the view's MIME
 * type. Tool results never change. The key names are the extension's
 * (test/scripts/mcp-view-build.test.ts compares them with @modelcontextprotocol/ext-apps).
 */
import type { AssetsBinding } from '../config';
import { isPlainObject } from './mcp-era';

export const VIEW_EXTENSION_ID = 'io.modelcontextprotocol/ui';
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
/** The deprecated flat tool `_meta` key that older hosts read (the ext-apps helpers' RESOURCE_URI_META_KEY). */
export const LEGACY_RESOURCE_URI_META_KEY = 'ui/resourceUri';
/** The 2026-07-28 per-request `_meta` key of the client's capabilities (the SDK's CLIENT_CAPABILITIES_META_KEY). */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

export const VIEW_URI = 'ui://knowtation/structure-view.html';
/** Where the page lies in the Worker's static assets (wrangler.toml [assets]). */
export const VIEW_ASSET_PATH = '/mcp-view.html';

/** The view's `_meta.ui`: no network of any kind (empty CSP domain lists), and a host-drawn border. */
const VIEW_RESOURCE_UI = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

/** The view as `resources/list` names it. */
export const VIEW_RESOURCE = {
  uri: VIEW_URI,
  name: 'knowtation-structure-view',
  title: 'Note structure',
  description:
    "Draws a Knowtation structure tool's result (outline, document tree, sections or facets) as collapsible levels with ids. Static HTML; reads no network.",
  mimeType: VIEW_MIME_TYPE,
  _meta: { ui: VIEW_RESOURCE_UI },
};

/** A tool's `_meta` naming the view, under both keys the extension's helpers set. */
export function viewToolMeta(): Record<string, unknown> {
  return { ui: { resourceUri: VIEW_URI }, [LEGACY_RESOURCE_URI_META_KEY]: VIEW_URI };
}

/**
 * Whether a 2026-07-28 request's own `_meta` client capabilities declare the extension with the
 * view's MIME type (SEP-1865, Client<>Server Capability Negotiation: `mimeTypes` is required).
 */
export function declaresView(rawMessage: unknown): boolean {
  const params = isPlainObject(rawMessage) && isPlainObject(rawMessage.params) ? rawMessage.params : undefined;
  const meta = params && isPlainObject(params._meta) ? params._meta : undefined;
  const capabilities = meta && isPlainObject(meta[CLIENT_CAPABILITIES_META_KEY]) ? meta[CLIENT_CAPABILITIES_META_KEY] : undefined;
  const extensions = capabilities && isPlainObject(capabilities.extensions) ? capabilities.extensions : undefined;
  const settings = extensions && isPlainObject(extensions[VIEW_EXTENSION_ID]) ? extensions[VIEW_EXTENSION_ID] : undefined;
  return settings !== undefined && Array.isArray(settings.mimeTypes) && settings.mimeTypes.includes(VIEW_MIME_TYPE);
}

/** The view page from the static assets, or null when the binding cannot give it. */
export async function readViewHtml(assets: AssetsBinding): Promise<string | null> {
  const response = await assets.fetch(new Request(`https://assets.invalid${VIEW_ASSET_PATH}`));
  if (!response.ok) {
    await response.body?.cancel();
    return null;
  }
  return response.text();
}

/** The `resources/read` result for the view: its HTML and, as the extension asks, the same `_meta.ui`. */
export function viewReadResult(html: string) {
  return { contents: [{ uri: VIEW_URI, mimeType: VIEW_MIME_TYPE, text: html, _meta: { ui: VIEW_RESOURCE_UI } }] };
}
