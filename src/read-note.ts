/**
 * THE pipeline, shared by REST and MCP:
 * ACL -> path and folder scope (refused before any fetch) -> one canister GET ->
 * decode -> scope -> build. Authentication, the rate limit and the vault
 * (resolveVault) happen in the adapters, before the request body or any
 * read, which hand in a verified Principal and its allowed vault. Every
 * outcome is a value; exceptions from the builders are mapped to their
 * typed kinds here and nowhere else.
 */
import { ContractError, decodeWireFrontmatter, type ContractPayload } from './contracts';
import { buildContract, type ContractSpec } from './contracts/registry';
import { isToolAllowed } from './auth/acl';
import type { Principal } from './auth/jwt';
import type { Config } from './config';
import { fail, ok, type Result } from './errors';
import type { RequestLog } from './log';
import { statusClass } from './log';
import { readNoteFromCanister } from './vault/canister';
import { isInScope, isOutsideScopeUnread, normalizeVaultPath } from './vault/path';

export interface ReadRequest {
  config: Config;
  principal: Principal;
  contract: ContractSpec;
  rawPath: unknown;
  /** The vault, already resolved and allowed for the principal (resolveVault). */
  vaultId: string;
  log: RequestLog;
}

export async function readContract(request: ReadRequest): Promise<Result<ContractPayload>> {
  const { config, principal, contract, log } = request;
  if (!isToolAllowed(principal.role, contract.tool)) return fail({ kind: 'InsufficientScope' });
  const path = normalizeVaultPath(request.rawPath);
  if (!path.ok) return path;
  // Answered exactly like a missing note, and before any read, so the answer's time says nothing.
  if (isOutsideScopeUnread(principal, path.value)) return fail({ kind: 'NotFound' });

  const read = await readNoteFromCanister(config, principal, request.vaultId, path.value);
  log.upstream = statusClass(read.upstreamStatus);
  if (!read.result.ok) {
    // Unreachable after authenticate, which refuses such claims first: a principal value that cannot be a header.
    if (read.result.error.kind === 'Unauthorized') log.reason = 'unsafe_claims';
    // A note that exists but could not be read must not reveal itself to a principal it is out of scope for.
    const unreadable = read.result.error.kind === 'NoteTooLarge' || read.result.error.kind === 'InvalidNoteResponse';
    if (unreadable && !isInScope(principal, path.value, null)) return fail({ kind: 'NotFound' });
    return read.result;
  }

  const frontmatter = decodeWireFrontmatter(read.result.value.frontmatter);
  if (!isInScope(principal, path.value, frontmatter)) return fail({ kind: 'NotFound' });

  try {
    // Sized before it is built: an answer over 4 MiB is refused as NoteTooComplex, never built or serialized.
    const payload = buildContract(contract, path.value, frontmatter, read.result.value.body);
    recordShape(log, payload);
    return ok(payload);
  } catch (error) {
    if (error instanceof ContractError) return fail({ kind: error.kind });
    return fail({ kind: 'Runtime' });
  }
}

function recordShape(log: RequestLog, payload: ContractPayload): void {
  log.truncated = payload.truncated;
  if ('headings' in payload) log.sections = payload.headings.length;
  else if ('sections' in payload) log.sections = payload.sections.length;
  else if ('root' in payload) log.sections = countNodes(payload.root.children);
}

function countNodes(nodes: { children: unknown[] }[]): number {
  return nodes.reduce((sum, node) => sum + 1 + countNodes(node.children as { children: unknown[] }[]), 0);
}
