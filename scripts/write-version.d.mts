// Types for scripts/write-version.mjs (kept in step with its JSDoc), for TypeScript callers (the tests).

export const VERSION_MODULE: string;
export function versionModule(version: string): string;
export function packageVersion(): string;
