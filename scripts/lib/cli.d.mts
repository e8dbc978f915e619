// Types for scripts/lib/cli.mjs (kept in step with its JSDoc), for TypeScript callers (bench.ts).

export function parseCommandLine<S extends string, B extends string = never>(
  argv: string[],
  names: { strings: readonly S[]; flags?: readonly B[] },
  UsageError: new (message: string) => Error,
): { help?: boolean } & { [K in S]?: string } & { [K in B]?: boolean };
export function errorMessage(error: unknown): string;
export function isEntryPoint(moduleUrl: string): boolean;
