/**
 * Vault-relative path rules of the Knowtation hosted server's builders and
 * of its tool flow (each rule below names where it applies). Every rejection
 * is a ContractError('InvalidPath') whose message never contains the
 * rejected input.
 */
import { invalidPath } from './errors';

const DRIVE_PREFIX = /^[A-Za-z]:\//;

function requireNonEmptyString(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw invalidPath();
  return raw;
}

/** Drops empty segments and refuses a '..' segment; a path with no empty segment and no '..' at all is returned as it is. */
function joinSegmentsRejectingParent(forward: string): string {
  if (!forward.startsWith('/') && !forward.endsWith('/') && !forward.includes('//') && !forward.includes('..')) return forward;
  const parts = forward.split('/').filter(Boolean);
  if (parts.includes('..')) throw invalidPath();
  return parts.join('/');
}

/**
 * The outline rule, checked first by every body-reading contract. Its
 * absolute check runs on the untrimmed, un-slash-converted input, so ' /x'
 * and '\\x' are accepted (reference quirk).
 */
export function normalizeOutlinePath(raw: unknown): string {
  const value = requireNonEmptyString(raw);
  const forward = value.trim().replace(/\\/g, '/');
  if (value.startsWith('/') || DRIVE_PREFIX.test(forward)) throw invalidPath();
  return joinSegmentsRejectingParent(forward);
}

/** The tree rule (nested payloads): the outline rule plus an absolute check on the trimmed, forward-slash form. */
export function normalizeTreePath(raw: unknown): string {
  const value = requireNonEmptyString(raw);
  const forward = value.trim().replace(/\\/g, '/');
  if (value.startsWith('/') || forward.startsWith('/') || DRIVE_PREFIX.test(forward)) throw invalidPath();
  return joinSegmentsRejectingParent(forward);
}

/**
 * Hosted pre-normalizer (the tool flow's), applied before any upstream read: trim,
 * backslashes to '/', no leading '/', no drive letter, no '..' segment,
 * empty segments dropped. '.' segments are kept.
 */
export function normalizeHostedPath(raw: unknown): string {
  const value = requireNonEmptyString(raw);
  const forward = value.trim().replace(/\\/g, '/');
  if (forward.startsWith('/') || DRIVE_PREFIX.test(forward)) throw invalidPath();
  return joinSegmentsRejectingParent(forward);
}

/** POSIX path normalization as Node's path.posix.normalize does it for a relative path. */
function posixNormalizeRelative(p: string): string {
  const trailingSlash = p.endsWith('/');
  const out: string[] = [];
  for (const segment of p.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else out.push('..');
    } else {
      out.push(segment);
    }
  }
  let normalized = out.join('/');
  if (normalized === '') normalized = '.';
  if (trailingSlash && normalized !== '.') normalized += '/';
  else if (trailingSlash) normalized = './';
  return normalized;
}

/**
 * The facets rule: no NUL, no absolute or UNC form, then POSIX
 * normalization ('.' removed, 'a/../b' resolved); '.', '..' and any result
 * that climbs out of the vault are rejected.
 */
export function normalizeFacetPath(raw: unknown): string {
  const value = requireNonEmptyString(raw);
  if (value.includes('\0')) throw invalidPath();
  const forward = value.replace(/\\/g, '/');
  if (value.startsWith('/') || forward.startsWith('/') || DRIVE_PREFIX.test(forward)) throw invalidPath();
  const normalized = posixNormalizeRelative(forward);
  if (normalized === '.' || normalized === '..' || normalized.startsWith('../')) {
    throw invalidPath();
  }
  return normalized;
}

/** POSIX dirname of a relative path, as Node computes it ('.' when there is no folder). */
export function posixDirname(p: string): string {
  let end = p.length;
  while (end > 1 && p[end - 1] === '/') end -= 1;
  const cut = p.lastIndexOf('/', end - 1);
  if (cut === -1) return '.';
  if (cut === 0) return '/';
  let folderEnd = cut;
  while (folderEnd > 1 && p[folderEnd - 1] === '/') folderEnd -= 1;
  return p.slice(0, folderEnd);
}

/** POSIX basename (no extension stripping), trailing slashes ignored. */
export function posixBasename(p: string): string {
  let end = p.length;
  while (end > 0 && p[end - 1] === '/') end -= 1;
  const trimmed = p.slice(0, end);
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
