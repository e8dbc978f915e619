// Helpers for worker tests (run inside workerd: fetch only, no Node APIs) that drive the demo
// canister started by test/support/node/global-setup.ts through its /__control/ API.
import { inject } from 'vitest';
import type { CanisterFault, RecordedRequest, SeedNote } from '../../../demo/canister.mjs';

export type { CanisterFault, RecordedRequest, SeedNote };

/** Base URL of the demo canister (no trailing slash). */
export function canisterUrl(): string {
  return inject('canisterUrl');
}

/** The X-Gateway-Auth secret the demo canister requires in this run. */
export function canisterSecret(): string {
  return inject('canisterSecret');
}

/**
 * A user id no other test uses, so every test reads and writes its own canister partition and
 * its own request log even when tests run in parallel.
 */
export function uniqueUser(prefix = 'user'): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

async function control(path: string, init: RequestInit): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('X-Gateway-Auth', canisterSecret());
  const response = await fetch(`${canisterUrl()}/__control/${path}`, { ...init, headers });
  if (!response.ok) {
    throw new Error(`demo canister control ${path} failed: ${response.status} ${await response.text()}`);
  }
  return response;
}

/**
 * Stores notes in the (user, vault) partition; later GETs for these paths answer them.
 * `frontmatter` objects are stored as JSON text, strings verbatim; `raw` replaces the whole 200 body.
 */
export async function seedNotes(user: string, vault: string, notes: SeedNote[]): Promise<void> {
  const response = await control('notes', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user, vault, notes }),
  });
  await response.body?.cancel();
}

/** Makes every authenticated request for this note misbehave as described; `null` clears it. */
export async function setFault(user: string, vault: string, path: string, fault: CanisterFault | null): Promise<void> {
  const response = await control('faults', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user, vault, path, fault }),
  });
  await response.body?.cancel();
}

/** Every request the canister received with this X-User-Id (including ones refused by auth), oldest first. */
export async function canisterRequests(user: string): Promise<RecordedRequest[]> {
  const response = await control(`requests?user=${encodeURIComponent(user)}`, { method: 'GET' });
  return (await response.json()) as RecordedRequest[];
}
