/**
 * Role -> tool ACL, complete as the Knowtation hosted server defines it,
 * so later tools slot in. Each contract's tool joins the set its registry
 * entry names (`acl`); the four body-free contracts are read tools and
 * therefore open to every role, including the fallback for unknown roles.
 */
import { CONTRACTS } from '../contracts/registry';

const CONTRACT_READ_TOOLS = CONTRACTS.filter((contract) => contract.acl === 'read').map((contract) => contract.tool);

export const READ_TOOLS = [
  'search',
  'get_note',
  ...CONTRACT_READ_TOOLS,
  'list_notes',
  'relate',
  'backlinks',
  'extract_tasks',
  'cluster',
  'tag_suggest',
  'summarize',
  'enrich',
];

export const WRITE_TOOLS = [...READ_TOOLS, 'write', 'hub_create_proposal', 'capture', 'transcribe', 'vault_sync'];

export const ADMIN_TOOLS = [...WRITE_TOOLS, 'index', 'export', 'import', 'import_url'];

export type Role = 'viewer' | 'editor' | 'evaluator' | 'admin';

const TOOLS_BY_ROLE: Record<Role, ReadonlySet<string>> = {
  viewer: new Set(READ_TOOLS),
  editor: new Set(WRITE_TOOLS),
  evaluator: new Set(WRITE_TOOLS),
  admin: new Set(ADMIN_TOOLS),
};

/** Any role claim other than the four known ones gets the viewer set. */
export function normalizeRole(claim: unknown): Role {
  return claim === 'editor' || claim === 'evaluator' || claim === 'admin' || claim === 'viewer' ? claim : 'viewer';
}

export function isToolAllowed(role: Role, tool: string): boolean {
  return TOOLS_BY_ROLE[role].has(tool);
}
