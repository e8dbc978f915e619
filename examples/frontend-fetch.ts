/**
 * A frontend's read of one note's sections (GET /api/v1/section-source), typed with the types
 * openapi-typescript generates from openapi.yaml (./generated/openapi.d.ts, `npm run openapi-types`).
 * Only `fetch` and `URL`: the same code runs in a page and in Node.
 *
 *   const source = await fetchSectionSource('http://127.0.0.1:8787', token, 'projects/Aurora/roadmap.md');
 *
 * In a page, the token is the Hub session's, and the page's origin must be in the Worker's
 * CORS_ORIGINS (under `npm start`, any http://127.0.0.1:<port> or http://localhost:<port> page is).
 * `npm run example:frontend` runs it from a terminal (run-frontend-fetch.ts).
 *
 * What a real page keeps: the Hub session's token, where the Hub keeps it (in memory, or the Hub's
 * own session); not in localStorage, where any script on the origin can read it, and never in a
 * URL. It has no refresh token: on a 401 the page sends the user back to the Hub's sign-in, on a
 * 429 it waits `retryAfterSeconds`. Answers hold the user's headings: log the status and code of a
 * failure (KnowtationApiError), never a token or a body.
 */
import type { components, paths } from './generated/openapi';

/** The 200 body, exactly as openapi.yaml documents it. */
export type SectionSource = paths['/api/v1/section-source']['get']['responses'][200]['content']['application/json'];
export type Section = SectionSource['sections'][number];
/** Every refusal's body: a fixed message and a code; nothing from the request is echoed. */
type ApiErrorBody = components['schemas']['Error'];

export class KnowtationApiError extends Error {
  constructor(
    readonly status: number,
    /** The documented code (`NOT_FOUND`, `INVALID_PATH`, `RATE_LIMITED`, ...); undefined if the body was not the Worker's. */
    readonly code: ApiErrorBody['code'] | undefined,
    /** Seconds to wait, from `Retry-After` (429 and some 503s). */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`Knowtation Edge answered ${status}${code ? ` ${code}` : ''}`);
  }
}

export interface FetchOptions {
  /** The vault to read (X-Vault-Id); the token's only vault, else `default`, when absent. */
  vaultId?: string;
  signal?: AbortSignal;
}

/**
 * `notePath` is the exact vault-relative path with its `.md` (`projects/Aurora/roadmap.md`), as
 * the Hub lists it: this server reads one note by path and cannot list or search notes.
 */
export async function fetchSectionSource(baseUrl: string, token: string, notePath: string, options: FetchOptions = {}): Promise<SectionSource> {
  // URLSearchParams percent-encodes the path, so a space, `#`, `&`, `+` or non-Latin name
  // arrives as one `path` parameter; `?path=${notePath}` would cut `a#b.md` at the `#`.
  const url = new URL('/api/v1/section-source', baseUrl);
  url.searchParams.set('path', notePath);
  // The token goes in the Authorization header only: a URL ends up in logs and history.
  const headers = new Headers({ Authorization: `Bearer ${token}` });
  if (options.vaultId) headers.set('X-Vault-Id', options.vaultId);

  const response = await fetch(url, { headers, signal: options.signal });
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as Partial<ApiErrorBody> | undefined;
    const retryAfter = response.headers.get('Retry-After');
    throw new KnowtationApiError(response.status, body?.code, retryAfter === null ? undefined : Number(retryAfter));
  }
  return (await response.json()) as SectionSource;
}

/**
 * A key for a section that holds across notes. `section_id` is unique within one note only:
 * it is built from slugs that keep just ASCII letters and digits, so `zh/笔记.md` and
 * `zh/日记.md` both give `zh-md:h2-heading-0001` for their first `## 标题`.
 */
export function sectionKey(source: SectionSource, section: Section): string {
  return JSON.stringify([source.path, section.section_id]);
}

/**
 * The sections as nested lines, two spaces per level below its parent (child_section_ids order).
 * Heading text is the note author's: in a page, set it with textContent, never innerHTML.
 */
export function sectionLines(source: SectionSource): string[] {
  const byId = new Map(source.sections.map((section) => [section.section_id, section]));
  const childIds = new Set(source.sections.flatMap((section) => section.child_section_ids));
  const lines: string[] = [];
  const visit = (section: Section, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${section.heading_text}${section.body_available ? '' : ' (no body)'}`);
    for (const id of section.child_section_ids) {
      const child = byId.get(id);
      if (child) visit(child, depth + 1);
    }
  };
  for (const section of source.sections) if (!childIds.has(section.section_id)) visit(section, 0);
  return lines;
}
