// Types for scripts/lib/conformance-node.mjs (kept in step with its JSDoc), for TypeScript callers (the conformance test).

export const CONFORMANCE_NODE_PACKAGE: string;
export const CONFORMANCE_NODE_VERSION: string;
export const CONFORMANCE_NODE_CACHE: string;
export function cachedConformanceNode(): string | null;
export function conformanceNode(): Promise<string>;
