// @ts-check
/**
 * Command-line helpers shared by the scripts: the option table (strict long options plus -h/--help,
 * through cli-options.mjs), an error's message, and whether a module runs as the script.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseOptions } from '../cli-options.mjs';

/**
 * Parses argv with these string, repeatable string and boolean options plus `--help`/`-h`; a parse
 * error is thrown as UsageError.
 * @template {string} S
 * @template {string} [B=never]
 * @template {string} [L=never]
 * @param {string[]} argv
 * @param {{ strings: readonly S[], flags?: readonly B[], lists?: readonly L[] }} names
 * @param {new (message: string) => Error} UsageError
 * @returns {{ help?: boolean } & { [K in S]?: string } & { [K in B]?: boolean } & { [K in L]?: string[] }}
 */
export function parseCommandLine(argv, { strings, flags = [], lists = [] }, UsageError) {
  /** @type {import('node:util').ParseArgsConfig['options']} */
  const options = {};
  for (const name of strings) options[name] = { type: 'string' };
  for (const name of lists) options[name] = { type: 'string', multiple: true };
  for (const name of flags) options[name] = { type: 'boolean' };
  options.help = { type: 'boolean', short: 'h' };
  return /** @type {any} */ (parseOptions(argv, options, UsageError));
}

/**
 * A script's usage error: `<script>: <message>` and the usage on stderr, exit 2.
 * @param {string} script
 * @param {string} usage
 * @param {string} message
 * @returns {never}
 */
export function exitWithUsage(script, usage, message) {
  process.stderr.write(`${script}: ${message}\n${usage}\n`);
  process.exit(2);
}

/**
 * The options of a script run from the shell (parseCommandLine on process.argv): an unknown or
 * incomplete option exits with the usage (exitWithUsage), `--help` prints it and exits 0.
 * @template {string} S
 * @template {string} [B=never]
 * @template {string} [L=never]
 * @param {string} script
 * @param {string} usage
 * @param {{ strings: readonly S[], flags?: readonly B[], lists?: readonly L[] }} names
 * @returns {{ [K in S]?: string } & { [K in B]?: boolean } & { [K in L]?: string[] }}
 */
export function commandLineOrExit(script, usage, names) {
  class UsageError extends Error {}
  /** @type {any} */
  let values;
  try {
    values = parseCommandLine(process.argv.slice(2), names, UsageError);
  } catch {
    exitWithUsage(script, usage, 'unknown or incomplete option');
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values;
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
