#!/usr/bin/env node
// @ts-check
/**
 * The TypeScript types of openapi.yaml for clients (examples/generated/openapi.d.ts), generated
 * by openapi-typescript, so a frontend's types are the documented contract and nothing hand-kept.
 *
 *   npm run openapi-types             # writes the file
 *   npm run openapi-types -- --check  # exit 1 when the committed file is not what openapi.yaml gives
 *   ... --out <file>                  # another file than the committed one (both modes)
 *
 * `npm run typecheck` runs the check, so a change to openapi.yaml without the regenerated file fails.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SPEC = path.join(REPO_ROOT, 'openapi.yaml');
const COMMITTED_TYPES = path.join(REPO_ROOT, 'examples', 'generated', 'openapi.d.ts');

/** The file's text as the openapi-typescript CLI writes it (its header, then the types). */
async function generatedTypes() {
  return COMMENT_HEADER + astToString(await openapiTS(pathToFileURL(SPEC)));
}

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, out: { type: 'string' } } });
const types = path.resolve(values.out ?? COMMITTED_TYPES);
const shownTypes = path.relative(process.cwd(), types);
const expected = await generatedTypes();
if (!values.check) {
  await writeFile(types, expected);
  console.log(`wrote ${shownTypes}`);
} else {
  const current = await readFile(types, 'utf8').catch(() => null);
  if (current !== expected) {
    console.error(`${shownTypes} is ${current === null ? 'missing' : 'not what openapi.yaml gives'}: run npm run openapi-types`);
    process.exitCode = 1;
  }
}
