// @ts-check
/**
 * Reading a folder of Markdown notes into the canister's stored form: the walk, what is skipped and
 * why, and the frontmatter split. Nothing here serves HTTP.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from './values.mjs';

/**
 * @typedef {object} VaultFileIssue
 * @property {string} path vault-relative, `/`-separated
 * @property {string} reason fixed wording, never file content
 *
 * @typedef {{ path: string, frontmatter: string, body: string }} VaultNote
 *
 * @typedef {object} VaultReport
 * @property {VaultNote[]} notes
 * @property {VaultFileIssue[]} skipped files (or folders) not loaded, with the reason
 * @property {VaultFileIssue[]} warnings files loaded with a caveat (e.g. broken frontmatter)
 * @property {boolean} limitReached true when the walk stopped at MAX_VAULT_NOTES
 *
 * @typedef {object} Walk
 * @property {string} root absolute vault folder
 * @property {VaultReport} report filled in as the walk goes
 * @property {TextDecoder} decoder fatal UTF-8
 */

/** Largest vault file loaded: the Worker refuses note responses above 8 MiB anyway. */
export const MAX_VAULT_FILE_BYTES = 8 * 1024 * 1024;
/** Most notes loaded from one vault folder; the walk stops there and says so. */
export const MAX_VAULT_NOTES = 10_000;
/** Longest vault path the Worker accepts (src/vault/path.ts MAX_PATH_CHARS). */
const MAX_WORKER_PATH_CHARS = 1024;

/** `---` line, optional YAML lines, closing `---` line; LF or CRLF; the closing line may end the file. */
const FRONTMATTER_BLOCK = /^---\r?\n(?:([\s\S]*?)\r?\n)?---(?:\r?\n|$)/;

/**
 * Splits a vault file into the canister's stored form, and says why a leading `---` block was not
 * taken as frontmatter. A leading YAML block that parses to a mapping becomes frontmatter JSON text
 * (YAML timestamps become ISO strings) and is removed from the body; the rest of the text is kept
 * unchanged. An empty block is an empty mapping. Invalid YAML, a non-mapping block, or no block at
 * all -> frontmatter `{}` and the whole text is the body.
 * @param {string} text
 * @returns {{ frontmatter: string, body: string, frontmatterProblem?: string }}
 */
function splitVaultNote(text) {
  const match = FRONTMATTER_BLOCK.exec(text);
  if (!match) return { frontmatter: '{}', body: text };
  const rest = text.slice(match[0].length);
  let parsed;
  try {
    parsed = parseYaml(match[1] ?? '', { customTags: ['timestamp'], merge: true, logLevel: 'error' });
  } catch {
    return { frontmatter: '{}', body: text, frontmatterProblem: 'frontmatter is not valid YAML' };
  }
  if (parsed === null || parsed === undefined) return { frontmatter: '{}', body: rest };
  if (!isPlainObject(parsed)) return { frontmatter: '{}', body: text, frontmatterProblem: 'frontmatter is not a YAML mapping' };
  try {
    return { frontmatter: JSON.stringify(parsed), body: rest };
  } catch {
    // Self-referencing aliases cannot be stored as JSON text.
    return { frontmatter: '{}', body: text, frontmatterProblem: 'frontmatter cannot be stored as JSON' };
  }
}

/**
 * The canister's stored form of a vault file (see splitVaultNote).
 * @param {string} text
 * @returns {{ frontmatter: string, body: string }}
 */
export function parseVaultNote(text) {
  const { frontmatter, body } = splitVaultNote(text);
  return { frontmatter, body };
}

/**
 * Why the Worker could never request this vault-relative path, or null when it can. The Worker
 * trims the requested path, turns `\` into `/` and refuses paths over 1024 characters, so a
 * file whose stored path differs after that is unreachable.
 * @param {string} relative
 * @returns {string | null}
 */
function unreachableReason(relative) {
  if (relative.length > MAX_WORKER_PATH_CHARS) return `path longer than ${MAX_WORKER_PATH_CHARS} characters`;
  if (relative.includes('\\')) return 'path contains a backslash, which the Worker reads as a folder separator';
  if (relative.trim() !== relative) return 'path starts or ends with whitespace, which the Worker trims';
  return null;
}

/** @param {unknown} error */
function errorCode(error) {
  const code = /** @type {NodeJS.ErrnoException} */ (error)?.code;
  return typeof code === 'string' ? code : 'read error';
}

/**
 * Tool folders and files (`.obsidian`, `.git`, `.trash`, ...) and dependencies are not notes.
 * @param {import('node:fs').Dirent} entry
 */
function isIgnored(entry) {
  return entry.name.startsWith('.') || (entry.name === 'node_modules' && entry.isDirectory());
}

/**
 * Why a `*.md` entry is not read at all (a link, not a regular file, a path the Worker cannot
 * request), or null.
 * @param {import('node:fs').Dirent} entry
 * @param {string} relative
 * @returns {string | null}
 */
function entrySkipReason(entry, relative) {
  if (entry.isSymbolicLink()) return 'symbolic link (not followed)';
  if (!entry.isFile()) return 'not a regular file';
  return unreachableReason(relative);
}

/**
 * A file's text, or why it cannot be served (too large, unreadable, not UTF-8).
 * @param {Walk} walk
 * @param {string} full
 * @returns {Promise<{ text: string } | { reason: string }>}
 */
async function readNoteText(walk, full) {
  let bytes;
  try {
    if ((await stat(full)).size > MAX_VAULT_FILE_BYTES) return { reason: `larger than ${MAX_VAULT_FILE_BYTES / (1024 * 1024)} MiB` };
    bytes = await readFile(full);
  } catch (error) {
    return { reason: `unreadable (${errorCode(error)})` };
  }
  try {
    return { text: walk.decoder.decode(bytes) };
  } catch {
    return { reason: 'not valid UTF-8' };
  }
}

/**
 * @param {Walk} walk
 * @param {string} full
 */
function relativeOf(walk, full) {
  return path.relative(walk.root, full).split(path.sep).join('/');
}

/**
 * Adds one `*.md` entry to the report: as a note (with a warning for broken frontmatter), or as
 * skipped with the reason; sets limitReached instead once MAX_VAULT_NOTES notes are loaded.
 * @param {Walk} walk
 * @param {import('node:fs').Dirent} entry
 * @param {string} full
 */
async function addNoteFile(walk, entry, full) {
  const { report } = walk;
  const relative = relativeOf(walk, full);
  const skipReason = entrySkipReason(entry, relative);
  const read = skipReason === null ? await readNoteText(walk, full) : { reason: skipReason };
  if ('reason' in read) {
    report.skipped.push({ path: relative, reason: read.reason });
    return;
  }
  if (report.notes.length >= MAX_VAULT_NOTES) {
    report.limitReached = true;
    return;
  }
  const { frontmatter, body, frontmatterProblem } = splitVaultNote(read.text);
  if (frontmatterProblem !== undefined) {
    report.warnings.push({ path: relative, reason: `${frontmatterProblem}: served with frontmatter {} and the block kept in the body` });
  }
  report.notes.push({ path: relative, frontmatter, body });
}

/**
 * The folder's entries sorted by name; null (and the folder named as skipped) when it cannot be
 * read, except the vault folder itself, whose error is thrown.
 * @param {Walk} walk
 * @param {string} dir
 * @param {boolean} isRoot
 */
async function listFolder(walk, dir, isRoot) {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    if (isRoot) throw error;
    walk.report.skipped.push({ path: `${relativeOf(walk, dir)}/`, reason: `folder unreadable (${errorCode(error)})` });
    return null;
  }
}

/**
 * @param {Walk} walk
 * @param {string} dir
 * @param {boolean} isRoot
 */
async function walkFolder(walk, dir, isRoot) {
  const entries = await listFolder(walk, dir, isRoot);
  for (const entry of entries ?? []) {
    if (walk.report.limitReached) return;
    if (isIgnored(entry)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await walkFolder(walk, full, false);
    else if (entry.name.endsWith('.md')) await addNoteFile(walk, entry, full);
  }
}

/**
 * Every `*.md` file under vaultDir (recursively, in sorted order) in stored form, with
 * vault-relative `/`-separated paths. Never throws for one bad file or folder: it is skipped and
 * named in `skipped` (unreadable, symbolic link, not a regular file (a FIFO, socket or device), not
 * UTF-8, over MAX_VAULT_FILE_BYTES, or a path the Worker cannot request). Entries whose name starts
 * with `.` (`.obsidian`, `.git`, `.trash`), `node_modules` folders and files not ending in `.md` are
 * ignored silently. A leading UTF-8 byte order mark is dropped. Only a missing or unreadable
 * vaultDir itself throws.
 * @param {string} vaultDir
 * @returns {Promise<VaultReport>}
 */
export async function readVault(vaultDir) {
  const root = path.resolve(vaultDir);
  /** @type {Walk} */
  const walk = {
    root,
    report: { notes: [], skipped: [], warnings: [], limitReached: false },
    decoder: new TextDecoder('utf-8', { fatal: true }),
  };
  await walkFolder(walk, root, true);
  return walk.report;
}

/**
 * The notes of readVault, without the report.
 * @param {string} vaultDir
 * @returns {Promise<VaultNote[]>}
 */
export async function loadVault(vaultDir) {
  return (await readVault(vaultDir)).notes;
}
