// Types for demo/explorer/server.mjs (kept in step with its JSDoc).

export interface ExplorerOptions {
  /** Loopback address to listen on (default 127.0.0.1): 127.0.0.0/8, ::1 or localhost; anything else is refused. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Worker base URL the page calls; a function when it is known only after the explorer starts. */
  workerUrl: string | (() => string);
  /** Bearer token the page sends (a local dev token). */
  token: string;
  /** Vault paths offered in the note list. */
  listNotes: () => string[];
  /** Shown in the page header. */
  vaultLabel?: string;
}

export interface Explorer {
  /** Base URL without a trailing slash. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export function explorerCsp(workerOrigin: string): string;
export function startExplorer(options: ExplorerOptions): Promise<Explorer>;
