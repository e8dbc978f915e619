// Helpers for worker tests that drive the Hub's hosted-context stand-in (demo/hub-context.mjs,
// started by test/support/node/global-setup.ts) through its /__control/ API.
import { inject } from 'vitest';
import type { HubFault, RecordedHubCall, Workspace } from '../../../demo/hub-context.mjs';

export type { HubFault, RecordedHubCall, Workspace };

/** The full URL of the stand-in's hosted-context endpoint: what HOSTED_CONTEXT_URL names. */
export function hostedContextUrl(): string {
  return `${inject('hubUrl')}/api/v1/hosted-context`;
}

async function control(path: string, init: RequestInit): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('X-Control-Secret', inject('hubControlSecret'));
  const response = await fetch(`${inject('hubUrl')}/__control/${path}`, { ...init, headers });
  if (!response.ok) throw new Error(`hub stand-in control ${path} failed: ${response.status}`);
  return response;
}

/** Adds a workspace (its owner, team roles, vault access, scopes and partition vaults). */
export async function addWorkspace(workspace: Workspace): Promise<void> {
  const response = await control('workspaces', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(workspace) });
  await response.body?.cancel();
}

/** Makes every hosted-context request of this actor misbehave as described; `null` clears it. */
export async function setHubFault(sub: string, fault: HubFault | null): Promise<void> {
  const response = await control('faults', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sub, fault }) });
  await response.body?.cancel();
}

/** Every hosted-context request this actor's token made, oldest first. */
export async function hubCalls(sub: string): Promise<RecordedHubCall[]> {
  const response = await control(`calls?sub=${encodeURIComponent(sub)}`, { method: 'GET' });
  return (await response.json()) as RecordedHubCall[];
}
