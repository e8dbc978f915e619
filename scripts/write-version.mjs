#!/usr/bin/env node
// @ts-check
/**
 * Writes src/version.ts from package.json's `version`. The Worker imports nothing outside src, so
 * the version it reports (serverInfo, the server cards, `npm run server-json`) is this generated
 * constant; `npm version` rewrites it (the `version` lifecycle script), and
 * test/scripts/version.test.ts fails whenever the two differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isEntryPoint } from './lib/cli.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const VERSION_MODULE = path.join(REPO_ROOT, 'src/version.ts');

/**
 * The text of src/version.ts for a version.
 * @param {string} version
 */
export function versionModule(version) {
  return `// Generated from package.json by scripts/write-version.mjs (run by \`npm version\`); do not edit.\nexport const PACKAGE_VERSION = ${JSON.stringify(version)};\n`;
}

/** package.json's version. */
export function packageVersion() {
  return /** @type {{ version: string }} */ (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))).version;
}

if (isEntryPoint(import.meta.url)) writeFileSync(VERSION_MODULE, versionModule(packageVersion()));
