// Types of cli-options.mjs for the TypeScript scripts.
import type { ParseArgsConfig } from 'node:util';

export type OptionValues = Record<string, string | boolean | string[] | undefined>;
export function parseOptions(argv: string[], options: ParseArgsConfig['options'], UsageError: new (message: string) => Error): OptionValues;
export function countOption(values: OptionValues, name: string, fallback: number, UsageError: new (message: string) => Error): number;
export function parseOptionsOrExit<T>(
  argv: string[],
  options: ParseArgsConfig['options'],
  usage: string,
  read: (values: OptionValues, UsageError: new (message: string) => Error) => T,
): T;
