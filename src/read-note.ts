/**
 * THE shared read, behind the gate (src/gate.ts) on every surface: the path
 * is admitted by the gate's ask step (askNote); then the role's contracts (decided
 * by the gate) -> folder scope (refused before any fetch) -> one canister GET ->
 * decode -> scope -> build. It takes only an AdmittedRequest (authenticated,
 * vault admitted, budget spent) and returns the result with the facts of its
 * log line. Exceptions from the builders are mapped to their typed kinds here
 * and nowhere else.
 */
import { ContractError, decodeWireFrontmatter, type ContractPayload } from './contracts';
import { buildContract, type ContractSpec } from './contracts/registry';
import { fail, ok, outcomeCode, type Result } from './errors';
import type { AdmittedRequest } from './gate';
import { statusClass, type LogFacts } from './log';
import { readNoteFromCanister } from './vault/canister';
import { isInScope, isOutsideScopeUnread, normalizeVaultPath } from './vault/path';

export interface ContractRead {
  result: Result<ContractPayload>;
  /** upstream, outcome and, for a payload, its shape (sections, truncated). */
  facts: LogFacts;
}

/** What a read asks for: one contract of one note, its path normalized (vault/path.ts). */
export interface NoteAsk {
  contract: ContractSpec;
  path: string;
}

/** The gate's `ask` of a read: the path as the one path rule admits it, or InvalidPath, before anything is spent. */
export function askNote(contract: ContractSpec, rawPath: unknown): Result<NoteAsk> {
  const path = normalizeVaultPath(rawPath);
  return path.ok ? ok({ contract, path: path.value }) : path;
}

export async function readContract(admitted: AdmittedRequest, note: NoteAsk): Promise<ContractRead> {
  const facts: LogFacts = {};
  const result = await read(admitted, note, facts);
  if (result.ok) recordShape(facts, note.contract, result.value);
  else facts.outcome = outcomeCode(result.error);
  return { result, facts };
}

async function read(admitted: AdmittedRequest, { contract, path }: NoteAsk, facts: LogFacts): Promise<Result<ContractPayload>> {
  const { config, principal, vaultId } = admitted;
  if (!admitted.contracts.includes(contract)) return fail({ kind: 'InsufficientScope' });
  // Answered exactly like a missing note, and before any read, so the answer's time says nothing.
  if (isOutsideScopeUnread(principal, path)) return fail({ kind: 'NotFound' });

  const answer = await readNoteFromCanister(config, principal, vaultId, path);
  facts.upstream = statusClass(answer.upstreamStatus);
  if (!answer.result.ok) {
    // Unreachable after authenticate, which refuses such claims first: a principal value that cannot be a header.
    if (answer.result.error.kind === 'Unauthorized') facts.reason = 'unsafe_claims';
    // A note that exists but could not be read must not reveal itself to a principal it is out of scope for.
    const unreadable = answer.result.error.kind === 'NoteTooLarge' || answer.result.error.kind === 'InvalidNoteResponse';
    if (unreadable && !isInScope(principal, path, null)) return fail({ kind: 'NotFound' });
    return answer.result;
  }

  const frontmatter = decodeWireFrontmatter(answer.result.value.frontmatter);
  if (!isInScope(principal, path, frontmatter)) return fail({ kind: 'NotFound' });

  try {
    // Sized before it is built: an answer over 4 MiB is refused as NoteTooComplex, never built or serialized.
    return ok(buildContract(contract, path, frontmatter, answer.result.value.body));
  } catch (error) {
    if (error instanceof ContractError) return fail({ kind: error.kind });
    return fail({ kind: 'Runtime' });
  }
}

function recordShape(facts: LogFacts, contract: ContractSpec, payload: ContractPayload): void {
  facts.truncated = payload.truncated;
  facts.sections = contract.sectionCount(payload);
}
