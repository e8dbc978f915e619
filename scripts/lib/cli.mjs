// @ts-check
/**
 * Command-line helpers shared by the scripts: the option table (strict long options plus -h/--help,
 * through cli-options.mjs), an error's message, and whether a module runs as the script.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseOptions } from '../cli-options.mjs';

/**
 * Parses argv with these string and boolean options plus `--help`/`-h`; a parse error is thrown as
 * UsageError.
 * @template {string} S
 * @template {string} [B=never]
 * @param {string[]} argv
 * @param {{ strings: readonly S[], flags?: readonly B[] }} names
 * @param {new (message: string) => Error} UsageError
 * @returns {{ help?: boolean } & { [K in S]?: string } & { [K in B]?: boolean }}
 */
export function parseCommandLine(argv, { strings, flags = [] }, UsageError) {
  /** @type {import('node:util').ParseArgsConfig['options']} */
  const options = {};
  for (const name of strings) options[name] = { type: 'string' };
  for (const name of flags) options[name] = { type: 'boolean' };
  options.help = { type: 'boolean', short: 'h' };
  return /** @type {any} */ (parseOptions(argv, options, UsageError));
}

/** @param {unknown} error */
export function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * True when the module at moduleUrl is the script node was started with (not an import).
 * @param {string} moduleUrl import.meta.url
 */
export function isEntryPoint(moduleUrl) {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
