/**
 * The offline runs' options: `--count N` and `--seed N`, strict (node:util parseArgs, long options
 * only, no positionals). `--help` prints the usage and exits 0; an unknown option, a missing value or
 * a count that is not a non-negative integer prints the reason and the usage and exits 2.
 */
import { parseArgs } from 'node:util';

export interface RunOptions {
  count: number;
  seed: number;
  /** The value of `--out`, or '' (only for runs that take it). */
  out: string;
}

export function readRunOptions(argv: string[], usage: string, defaults: { count: number; seed: number }, takesOut = false): RunOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { count: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...(takesOut ? { out: { type: 'string' } } : {}) },
    }).values;
    if (values.help) {
      console.log(usage);
      process.exit(0);
    }
    return { count: integer(values.count, 'count', defaults.count), seed: integer(values.seed, 'seed', defaults.seed), out: typeof values.out === 'string' ? values.out : '' };
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
}

function integer(text: string | boolean | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (typeof text !== 'string' || text.trim() === '' || !Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} needs a non-negative integer`);
  return value;
}
