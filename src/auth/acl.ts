/**
 * The role ACL of what this Worker serves, and only that: which of the registry's contracts a role
 * may read. The Hub's full table of tools and roles is its gateway's (aaronrene/knowtation,
 * hub/gateway/mcp-tool-acl.mjs): there the body-free contracts are read tools, and every role
 * holds the read tools, so here every role reads every contract. A role the table does not name (the
 * bridge's `member`, a missing claim) is the viewer, as the gateway's fallback is its read set.
 */
import { CONTRACTS, type ContractSpec } from '../contracts/registry';

export type Role = 'viewer' | 'editor' | 'evaluator' | 'admin';
/** What a contract's registry entry requires (`acl`). */
type Access = ContractSpec['acl'];

const ACCESS_BY_ROLE: Record<Role, readonly Access[]> = {
  viewer: ['read'],
  editor: ['read'],
  evaluator: ['read'],
  admin: ['read'],
};

/** Any role claim other than the four known ones gets the viewer's access. */
export function normalizeRole(claim: unknown): Role {
  return claim === 'editor' || claim === 'evaluator' || claim === 'admin' || claim === 'viewer' ? claim : 'viewer';
}

const CONTRACTS_BY_ROLE = Object.fromEntries(
  (Object.keys(ACCESS_BY_ROLE) as Role[]).map((role) => [role, Object.freeze(CONTRACTS.filter((contract) => ACCESS_BY_ROLE[role].includes(contract.acl)))]),
) as unknown as Record<Role, readonly ContractSpec[]>;

/** The contracts a role may read, in registry order: its REST routes and MCP tools. */
export function contractsForRole(role: Role): readonly ContractSpec[] {
  return CONTRACTS_BY_ROLE[role];
}
