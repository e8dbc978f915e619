// Types for demo/canister.mjs (kept in step with its JSDoc).

/** A misbehaviour injected for one note path of one (user, vault) partition. */
export type CanisterFault =
  /** Answer with this status (default body: a JSON error object). */
  | { kind: 'status'; status: number; body?: string; contentType?: string }
  /** 200 with exactly this text (e.g. HTML or truncated JSON); Content-Type defaults to application/json. */
  | { kind: 'text'; body: string; contentType?: string }
  /** Never answer; the socket stays open. */
  | { kind: 'hang' }
  /** 200 headers and half of the note JSON, then nothing more (Content-Length declared unless `chunked`). */
  | { kind: 'hang-body'; chunked?: boolean }
  /** Destroy the socket without any response. */
  | { kind: 'reset' }
  /** 200 headers and half of the note JSON, then destroy the socket. */
  | { kind: 'reset-mid-body' }
  /** The valid note JSON in `chunks` pieces, one every `intervalMs` (Content-Length declared unless `chunked`). */
  | { kind: 'drip'; chunks: number; intervalMs: number; chunked?: boolean }
  /** 200, a valid note JSON whose body string is `bytes` characters, streamed (chunked unless declareLength). */
  | { kind: 'huge'; bytes: number; declareLength?: boolean }
  /** 200, a valid note JSON whose body string is `bytes` characters (and `padBytes` more in an ignored field), gzip-compressed (Content-Encoding: gzip, the compressed Content-Length). */
  | { kind: 'gzip'; bytes: number; padBytes?: number };

/** A note for POST /__control/notes. */
export interface SeedNote {
  path: string;
  /** An object is stored as JSON text; a string is stored verbatim; absent -> "{}". */
  frontmatter?: unknown;
  body?: string;
  /** When present (any JSON value), the 200 response body is exactly JSON.stringify(raw). */
  raw?: unknown;
}

/** One entry of GET /__control/requests. */
export interface RecordedRequest {
  method: string;
  /** Raw request target including the query string. */
  url: string;
  /** Lower-cased header names. */
  headers: Record<string, string | string[] | undefined>;
}

export interface DemoCanisterOptions {
  /**
   * Loopback address to listen on (default 127.0.0.1): 127.0.0.0/8, ::1 or localhost; anything else
   * is refused with a TypeError. Requests are served only when their Host is `<address>:<port>` or
   * `localhost:<port>` (else 421).
   */
  host?: string;
  port?: number;
  /** Required value of X-Gateway-Auth; empty or absent denies every authenticated route. */
  gatewaySecret?: string;
  /** Folder whose *.md files are loaded into (seedUser, seedVault). */
  vaultDir?: string;
  seedUser?: string;
  seedVault?: string;
  /** Enables the /__control/ test API and the request log. */
  control?: boolean;
}

/** A vault file not loaded (skipped) or loaded with a caveat (warning); the reason is fixed wording. */
export interface VaultFileIssue {
  /** Vault-relative, `/`-separated; folders end with `/`. */
  path: string;
  reason: string;
}

export interface VaultReport {
  notes: Array<{ path: string; frontmatter: string; body: string }>;
  skipped: VaultFileIssue[];
  warnings: VaultFileIssue[];
  /** True when the walk stopped at MAX_VAULT_NOTES. */
  limitReached: boolean;
}

export interface DemoCanister {
  /** Base URL without a trailing slash. */
  url: string;
  port: number;
  /** What loading `vaultDir` found; undefined without a vaultDir. */
  vault: (Omit<VaultReport, 'notes'> & { noteCount: number }) | undefined;
  /** Sorted paths stored for (user, vault); defaults to the seed partition. In-process only. */
  listNotes(user?: string, vaultId?: string): string[];
  close(): Promise<void>;
}

export function startDemoCanister(options?: DemoCanisterOptions): Promise<DemoCanister>;
export function parseVaultNote(text: string): { frontmatter: string; body: string };
export const MAX_VAULT_FILE_BYTES: number;
export const MAX_VAULT_NOTES: number;
export function readVault(vaultDir: string): Promise<VaultReport>;
export function loadVault(vaultDir: string): Promise<Array<{ path: string; frontmatter: string; body: string }>>;
export function sanitizeVaultId(header: string | string[] | undefined | null): string;
