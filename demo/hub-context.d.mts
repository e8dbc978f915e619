// Types for demo/hub-context.mjs (kept in step with its JSDoc).

/** One bridge's data: hub_workspace, hub_roles, hub_vault_access, hub_scope, and the canister's vaults. */
export interface Workspace {
  owner: string | null;
  roles?: Record<string, string>;
  admins?: string[];
  access?: Record<string, string[]>;
  scope?: Record<string, Record<string, { projects?: string[]; folders?: string[] }>>;
  vaults?: Record<string, string[]>;
  mayApprove?: Record<string, boolean>;
}

/** How an actor's requests are answered instead of the hosted context. */
export interface HubFault {
  status?: number;
  body?: string;
  delayMs?: number;
  location?: string;
}

export interface RecordedHubCall {
  vault: string | null;
  authorization: string | null;
  headerNames: string[];
}

export function sanitizeVaultId(raw: string | undefined): string;

export function hostedContext(workspace: Workspace, actor: string, vaultId: string): { status: number; body: Record<string, unknown> };

export function startHubContext(options: {
  host?: string;
  port?: number;
  secret: string;
  workspaces?: Workspace[];
  control?: boolean;
  controlSecret?: string;
}): Promise<{ url: string; contextUrl: string; port: number; close(): Promise<void> }>;
