// Types for demo/lib/oauth-clients.mjs (kept in step with its JSDoc).

/** Largest registration request body the local authorization server accepts, in bytes. */
export const MAX_REGISTRATION_BYTES: number;
/** Most redirect URIs one client may register. */
export const MAX_REDIRECT_URIS: number;
/** Dynamic registrations one start accepts unless `maxRegisteredClients` says otherwise. */
export const DEFAULT_MAX_REGISTERED_CLIENTS: number;
/** Most dynamic registrations one start accepts from one web page's (loopback) origin. */
export const MAX_REGISTERED_CLIENTS_PER_ORIGIN: number;
/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: unknown): string | undefined;
/** True for an http redirect URI on a loopback host. */
export function isLoopbackRedirectUri(uri: unknown): boolean;
/** Applies the server's client rules to registration or client ID metadata document metadata, in place; throws oidc-provider's InvalidClientMetadata. */
export function applyClientRules(metadata: Record<string, unknown>, oidcScopes: readonly string[]): void;
/** True for an Origin of a page on this machine: http or https on a loopback host, any port. */
export function isLoopbackOrigin(origin: string): boolean;
/** Koa middleware for the registration endpoint: pages on loopback origins only (CORS), a size bound, a count bound and one per origin. */
export function registrationGuard(options: { path: string; maxClients: number; maxClientsPerOrigin?: number }): (ctx: any, next: () => Promise<void>) => Promise<void>;
