// Types for scripts/dev-config.mjs (kept in step with it), for TypeScript callers (the tests).

export const DEV_SESSION_SECRET: string;
export const DEV_CANISTER_AUTH_SECRET: string;
export const DEV_CANISTER_PORT: number;
export const WORKER_PORT: number;
export const DEV_EXPLORER_PORT: number;
export const DEV_AUTH_PORT: number;
export const DEMO_USER: string;
export const DEMO_VAULT: string;
export function isDevSecret(secret: unknown): boolean;
