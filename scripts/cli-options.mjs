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
