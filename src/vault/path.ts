/**
 * Request-level path and vault policy, applied before any upstream read.
 * A refused value is never echoed: callers get only the error kind.
 */
import { ContractError, normalizeHostedPath } from '../contracts';
import { fail, ok, type Result } from '../errors';
import type { HostedScope, Principal } from '../auth/jwt';
import { hasUnsafeCharacter } from '../unsafe-text';

export const MAX_PATH_CHARS = 1024;
const VAULT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Characters that render like '.', '/' or '\' and must not smuggle a traversal past a later decoder. */
const LOOKALIKES: Record<string, string> = {
  '\u2024': '.', // ONE DOT LEADER
  '\uFE52': '.', // SMALL FULL STOP
  '\uFF0E': '.', // FULLWIDTH FULL STOP
  '\u3002': '.', // IDEOGRAPHIC FULL STOP
  '\uFF61': '.', // HALFWIDTH IDEOGRAPHIC FULL STOP
  '\u2215': '/', // DIVISION SLASH
  '\u2044': '/', // FRACTION SLASH
  '\uFF0F': '/', // FULLWIDTH SOLIDUS
  '\u29F8': '/', // BIG SOLIDUS
  '\u2571': '/', // BOX DRAWINGS LIGHT DIAGONAL
  '\uFF3C': '\\', // FULLWIDTH REVERSE SOLIDUS
  '\u29F9': '\\', // BIG REVERSE SOLIDUS
  '\u2216': '\\', // SET MINUS
  '\uFE68': '\\', // SMALL REVERSE SOLIDUS
};
const LOOKALIKE_PATTERN = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'g');
/** A run of percent-escapes, decoded as UTF-8 bytes the way a lenient store would (invalid bytes -> U+FFFD). */
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const MAX_SKELETON_ROUNDS = 8;

/** The bytes a run of `%XX` escapes (PERCENT_RUN) stands for. */
function percentRunBytes(run: string): Uint8Array {
  const bytes = new Uint8Array(run.length / 3);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
  return bytes;
}

function decodePercentRun(run: string): string {
  return new TextDecoder().decode(percentRunBytes(run));
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Percent-escapes of an ASCII string (a URL's query is, after the URL parser) decoded as UTF-8,
 * or null when a run of them is not UTF-8. A UTF-8 sequence cannot span a literal ASCII char, so
 * decoding run by run is decoding the whole; a `%` without two hex digits stays as it is.
 */
export function decodePercentEscapesStrictly(ascii: string): string | null {
  try {
    return ascii.replace(PERCENT_RUN, (run) => strictUtf8.decode(percentRunBytes(run)));
  } catch {
    return null;
  }
}

/**
 * What a lenient downstream could turn the path into: NFKC-folded
 * (fullwidth '％２ｅ' -> '%2e'), look-alike dots and slashes mapped to ASCII,
 * and percent-escapes decoded (UTF-8), repeated to a fixed point so nested
 * encodings ('%252e', '%%32%65') unfold too. Used only to decide refusal.
 */
function skeleton(path: string): string {
  let current = path;
  for (let round = 0; round < MAX_SKELETON_ROUNDS; round += 1) {
    const next = current
      .normalize('NFKC')
      .replace(LOOKALIKE_PATTERN, (ch) => LOOKALIKES[ch] ?? ch)
      .replace(PERCENT_RUN, decodePercentRun);
    if (next === current) break;
    current = next;
  }
  return current;
}

/** What a lenient store may drop from a segment: Unicode White_Space and Default_Ignorable_Code_Point. */
const IGNORABLE = /[\p{White_Space}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * The dot-segment rule: a segment is read as '.' or '..' when it is one
 * once everything from its first ';' is cut and all whitespace and
 * default-ignorable code points are removed ('.. ', '..\t', '..;x',
 * '..<U+200B>', '<U+00AD>..', '.<U+00A0>'). Such a segment, in any
 * spelling including the plain one, is refused: a store that trims, strips
 * or cuts at ';' would otherwise resolve it.
 */
function hasDotSegment(path: string): boolean {
  return path.split(/[/\\]/).some((segment) => {
    const cut = segment.indexOf(';');
    const bare = (cut === -1 ? segment : segment.slice(0, cut)).replace(IGNORABLE, '');
    return bare === '.' || bare === '..';
  });
}

/**
 * The one path rule for every contract on every surface: the hosted
 * normalizer (trim, '\' -> '/', no absolute or drive form, no '..', empty
 * segments dropped), plus refusal of over-long input, control characters
 * and lone surrogates, dot segments in any spelling (hasDotSegment), and
 * any input whose skeleton would do one of these or escape the vault.
 * Ordinary names (a '%', 'C:name.md', non-ASCII letters) are served as
 * they are.
 */
export function normalizeVaultPath(raw: unknown): Result<string> {
  if (typeof raw !== 'string' || raw.length > MAX_PATH_CHARS || hasUnsafeCharacter(raw)) {
    return fail({ kind: 'InvalidPath' });
  }
  const lenient = skeleton(raw);
  if (hasUnsafeCharacter(lenient)) return fail({ kind: 'InvalidPath' });
  if (hasDotSegment(raw) || hasDotSegment(lenient)) return fail({ kind: 'InvalidPath' });
  try {
    const normalized = normalizeHostedPath(raw);
    normalizeHostedPath(lenient);
    return ok(normalized);
  } catch (error) {
    if (error instanceof ContractError) return fail({ kind: 'InvalidPath' });
    throw error;
  }
}

/** A vault id as a URL segment or header carries it: [A-Za-z0-9_-]{1,64}. */
export function isVaultId(value: string): boolean {
  return VAULT_ID.test(value);
}

/** Where a request names its vault: the X-Vault-Id header, and the endpoint's own vault (`/mcp/vaults/<id>`). */
export interface VaultSelection {
  /** Raw X-Vault-Id header value. */
  header: string | null;
  /** The vault the endpoint URL names, already a valid id; null on endpoints without one. */
  endpoint: string | null;
}

/**
 * The vault a request asks for, decided before any read or Hub call: the endpoint's vault (a
 * header that names another is refused), else the trimmed header, else the one vault a
 * single-entry allowlist in the token names, else `default`. It must be well-formed; whether the
 * principal may read it is admitVault's, once the principal's hosted context is known.
 */
export function requestedVault(principal: Principal, selection: VaultSelection): Result<string> {
  const header = (selection.header ?? '').trim();
  if (header !== '' && !VAULT_ID.test(header)) return fail({ kind: 'InvalidVault' });
  if (selection.endpoint !== null && header !== '' && header !== selection.endpoint) return fail({ kind: 'InvalidVault' });
  const allowlist = principal.allowedVaultIds;
  const vaultId = selection.endpoint ?? (header || (allowlist?.length === 1 ? allowlist[0] : 'default'));
  if (!VAULT_ID.test(vaultId)) return fail({ kind: 'InvalidVault' });
  return ok(vaultId);
}

/** A principal that carries an allowlist may read only the vaults on it. */
export function admitVault(principal: Principal, vaultId: string): Result<void> {
  const allowlist = principal.allowedVaultIds;
  return allowlist && !allowlist.includes(vaultId) ? fail({ kind: 'VaultForbidden' }) : ok(undefined);
}

/**
 * Hosted scope: a scoped principal may read a note only when its folder is a
 * scope folder or below one, or its raw frontmatter `project` is a scope
 * project. Anything else is reported exactly like a missing note.
 */
export function isInScope(principal: Principal, path: string, frontmatter: Record<string, unknown> | null): boolean {
  const scope = principal.scope;
  if (!scope) return true;
  if (isInScopeFolder(scope, path)) return true;
  // Without the frontmatter (the answer was unreadable) the project test cannot pass.
  return frontmatter !== null && typeof frontmatter.project === 'string' && scope.projects.includes(frontmatter.project);
}

function isInScopeFolder(scope: HostedScope, path: string): boolean {
  const cut = path.lastIndexOf('/');
  const folder = cut === -1 ? '' : path.slice(0, cut);
  return scope.folders.some((f) => folder === f || folder.startsWith(`${f}/`));
}

/**
 * True when the scope refuses the path before any read: a scope of folders only decides by the
 * path alone, so a note outside it costs no canister read and its existence cannot show in the
 * time of the answer. A scope with projects needs the note's frontmatter (docs/AUTH.md).
 */
export function isOutsideScopeUnread(principal: Principal, path: string): boolean {
  const scope = principal.scope;
  return scope !== null && scope.projects.length === 0 && !isInScopeFolder(scope, path);
}
