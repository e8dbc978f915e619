/**
 * Who the server says it is, in one place. serverInfo on both MCP eras, the server card and the
 * registry entry are all built from these constants, so what a client is shown before it connects
 * (card, registry) and what it is told once connected (initialize, server/discover) cannot differ.
 * Every URL is built from the public origin the caller passes (PUBLIC_ORIGIN), never from a request.
 */
import { PACKAGE_VERSION } from '../version';

/** serverInfo.name exactly as the Knowtation hosted MCP server gives it (docs/MCP.md, Names). */
export const SERVER_NAME = 'knowtation-hosted';
export const SERVER_TITLE = 'Knowtation Edge';
/** The deployed version: package.json's (src/version.ts), so a release bump reaches serverInfo, the card and server.json at once. */
export const SERVER_VERSION: string = PACKAGE_VERSION;
/** At most 100 characters: the limit the server card and server.json schemas set. */
export const SERVER_DESCRIPTION = 'Body-free structure of Knowtation notes: heading outline, heading tree, metadata facets, sections.';
/** The part after `/` of the default reverse-DNS name (defaultCardName). */
export const CARD_NAME_SERVER_PART = 'knowtation-edge';

export type IconTheme = 'light' | 'dark';

/** Where the Worker serves each icon, under its own origin. */
export const ICON_PATHS: Record<IconTheme, string> = { light: '/icons/light.svg', dark: '/icons/dark.svg' };

const iconSvg = (tile: string, ink: string): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="2" y="2" width="60" height="60" rx="14" fill="${tile}"/>` +
  `<path d="M14 18h36M22 32h28M30 46h20" stroke="${ink}" stroke-width="6" stroke-linecap="round"/></svg>`;

/**
 * The icons themselves, an outline's indented heading bars. MCP 2025-11-25 `Icon.theme`: `light` is
 * drawn for a light background (a dark tile), `dark` for a dark background (a light tile).
 */
export const ICON_SVG: Record<IconTheme, string> = {
  light: iconSvg('#1d3557', '#ffffff'),
  dark: iconSvg('#e8eef6', '#1d3557'),
};

/** MCP 2025-11-25 `Icon`: an SVG is scalable, so `sizes` is `["any"]`. */
export interface Icon {
  src: string;
  mimeType: 'image/svg+xml';
  sizes: ['any'];
  theme: IconTheme;
}

export function serverIcons(origin: string): Icon[] {
  return (['light', 'dark'] as const).map((theme) => ({ src: `${origin}${ICON_PATHS[theme]}`, mimeType: 'image/svg+xml', sizes: ['any'], theme }));
}

/** MCP 2025-11-25 `Implementation`: what serverInfo says on the 2025 era and server/discover's `_meta` on 2026-07-28. */
export interface ServerInfo {
  name: string;
  title: string;
  version: string;
  description: string;
  websiteUrl?: string;
  icons: Icon[];
}

/** serverInfo for a Worker at `origin`; `websiteUrl` (SERVER_WEBSITE_URL) is left out when unset. */
export function serverInfo(origin: string, websiteUrl: string | undefined): ServerInfo {
  return {
    name: SERVER_NAME,
    title: SERVER_TITLE,
    version: SERVER_VERSION,
    description: SERVER_DESCRIPTION,
    ...(websiteUrl === undefined ? {} : { websiteUrl }),
    icons: serverIcons(origin),
  };
}

/** A dotted IPv4 address as the URL parser writes a hostname (it has already normalized other spellings). */
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * The reverse-DNS name a card and a registry entry carry when SERVER_CARD_NAME is unset: the public
 * host's labels reversed, then `/knowtation-edge` (`https://mcp.example.com` gives
 * `com.example.mcp/knowtation-edge`), the namespace the MCP Registry verifies for that domain.
 * An address is no domain, so it is not reversed: a loopback one (a local stack) gives
 * `localhost`, any other `ip-` and its digits (`ip-203-0-113-5`).
 */
export function defaultCardName(origin: string): string {
  const host = new URL(origin).hostname;
  const address = host.startsWith('[') ? host.slice(1, -1) : IPV4.test(host) ? host : null;
  const namespace =
    address === null
      ? host.split('.').reverse().join('.')
      : address === '::1' || address.startsWith('127.')
        ? 'localhost'
        : `ip-${address.replace(/[.:]/g, '-')}`;
  return `${namespace}/${CARD_NAME_SERVER_PART}`;
}
