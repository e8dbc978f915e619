/**
 * The project scripts' option parsing: node:util parseArgs, strict, long options only, no
 * positionals. A parse error (unknown option, missing value) becomes the caller's usage error,
 * whose message each script prints with its usage before exiting 2.
 */
import { parseArgs } from 'node:util';

/**
 * @param {string[]} argv
 * @param {import('node:util').ParseArgsConfig['options']} options
 * @param {new (message: string) => Error} UsageError
 * @returns {Record<string, string | boolean | string[] | undefined>}
 */
export function parseOptions(argv, options, UsageError) {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The value of option `name` as a non-negative safe integer, or `fallback` when it is absent.
 * @param {Record<string, string | boolean | string[] | undefined>} values
 * @param {string} name
 * @param {number} fallback
 * @param {new (message: string) => Error} UsageError
 * @returns {number}
 */
export function countOption(values, name, fallback, UsageError) {
  const text = values[name];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (typeof text !== 'string' || text.trim() === '' || !Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`--${name} needs a non-negative integer`);
  }
  return value;
}

class ScriptUsageError extends Error {}

/**
 * For scripts with no usage handling of their own: parses `argv`, then `read` turns the values into
 * the script's options. `--help` prints `usage` and exits 0; a usage error (from the parser or from
 * `read`, thrown as the class it is given) prints its message and `usage` and exits 2.
 * @template T
 * @param {string[]} argv
 * @param {import('node:util').ParseArgsConfig['options']} options
 * @param {string} usage
 * @param {(values: Record<string, string | boolean | string[] | undefined>, UsageError: new (message: string) => Error) => T} read
 * @returns {T}
 */
export function parseOptionsOrExit(argv, options, usage, read) {
  try {
    const values = parseOptions(argv, { ...options, help: { type: 'boolean', short: 'h' } }, ScriptUsageError);
    if (values.help) {
      console.log(usage);
      process.exit(0);
    }
    return read(values, ScriptUsageError);
  } catch (error) {
    if (!(error instanceof ScriptUsageError)) throw error;
    console.error(`${error.message}\n${usage}`);
    process.exit(2);
  }
}
