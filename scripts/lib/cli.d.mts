// Types for scripts/lib/cli.mjs (kept in step with its JSDoc), for TypeScript callers (bench.ts).

export function parseCommandLine<S extends string, B extends string = never, L extends string = never>(
  argv: string[],
  names: { strings: readonly S[]; flags?: readonly B[]; lists?: readonly L[] },
  UsageError: new (message: string) => Error,
): { help?: boolean } & { [K in S]?: string } & { [K in B]?: boolean } & { [K in L]?: string[] };
export function exitWithUsage(script: string, usage: string, message: string): never;
export function commandLineOrExit<S extends string, B extends string = never, L extends string = never>(
  script: string,
  usage: string,
  names: { strings: readonly S[]; flags?: readonly B[]; lists?: readonly L[] },
): { [K in S]?: string } & { [K in B]?: boolean } & { [K in L]?: string[] };
export function errorMessage(error: unknown): string;
export function isEntryPoint(moduleUrl: string): boolean;
