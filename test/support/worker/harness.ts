/**
 * Drives the real Worker inside workerd: every call goes through the
 * exported fetch handler with an env the test chooses, against the demo
 * canister served over loopback HTTP by the global setup.
 */
import { env as poolBindings } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import worker from '../../../src/index';
import { CONTRACTS, type ContractName } from '../../../src/contracts/registry';
import { canisterSecret, canisterUrl } from './canister';
import { assertMatchesOpenApi } from './openapi';
import { TEST_SESSION_SECRET } from '../test-secrets';

export const ORIGIN = 'https://edge.example';
export const HUB_ORIGIN = 'https://hub.example';
/** The Hub as the authorization server of record: its issuer identifier. */
export const AUTHORIZATION_SERVER = 'https://hub.example';
export const SESSION_SECRET = TEST_SESSION_SECRET;
export const PREVIOUS_SECRET = 'test-previous-secret-for-knowtation-edge-0002';

export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    CANISTER_URL: canisterUrl(),
    CANISTER_AUTH_SECRET: canisterSecret(),
    SESSION_SECRET,
    CORS_ORIGINS: HUB_ORIGIN,
    ENVIRONMENT: 'production',
    CANISTER_TIMEOUT_MS: '2000',
    PUBLIC_ORIGIN: ORIGIN,
    OAUTH_AUTHORIZATION_SERVER: AUTHORIZATION_SERVER,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

export interface TokenOptions {
  secret?: string;
  alg?: string;
  expiresIn?: string | number | null;
  header?: Record<string, unknown>;
}

export async function mintToken(claims: Record<string, unknown>, options: TokenOptions = {}): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256', ...options.header }).setIssuedAt();
  if (options.expiresIn !== null) jwt.setExpirationTime(options.expiresIn ?? '10m');
  return jwt.sign(new TextEncoder().encode(options.secret ?? SESSION_SECRET));
}

export interface CallOptions {
  method?: string;
  token?: string | null;
  headers?: Record<string, string>;
  body?: BodyInit;
  env?: Record<string, string>;
  /**
   * Bindings for this call, over the default: RATE_LIMITER is the pool's lifted TEST_RATE_LIMITER
   * (vitest.config.ts), so no suite but rate-limit.test.ts ever meets the per-user limit.
   * `{ RATE_LIMITER: undefined }` runs without the binding.
   */
  bindings?: Record<string, unknown>;
}

/** The pool's rate-limit bindings: wrangler.toml's own RATE_LIMITER (60 per 60 s) and the lifted TEST_RATE_LIMITER. */
export function rateLimitBinding(name: 'RATE_LIMITER' | 'PROTOCOL_RATE_LIMITER' | 'TEST_RATE_LIMITER'): unknown {
  return (poolBindings as unknown as Record<string, unknown>)[name];
}

const envs = new Map<string, Record<string, unknown>>();
const bindingIds = new Map<unknown, number>();

/**
 * One env object per distinct set of bindings, as an isolate hands the same env to every request:
 * what the Worker keeps per configuration (its parsed config, accepted-tokens.ts) then lives
 * across a suite's calls as it does across a deployment's requests.
 */
function isolateEnv(env: Record<string, unknown>): Record<string, unknown> {
  const idOf = (value: unknown): unknown => {
    if (typeof value === 'string' || value === undefined) return value;
    if (!bindingIds.has(value)) bindingIds.set(value, bindingIds.size);
    return { binding: bindingIds.get(value) };
  };
  const key = JSON.stringify(Object.keys(env).sort().map((name) => [name, idOf(env[name])]));
  let kept = envs.get(key);
  if (!kept) {
    kept = env;
    envs.set(key, kept);
  }
  return kept;
}

export async function callWorker(pathAndQuery: string, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set('Authorization', `Bearer ${options.token}`);
  const method = options.method ?? 'GET';
  const request = new Request(`${ORIGIN}${pathAndQuery}`, { method, headers, body: options.body });
  const lifted = rateLimitBinding('TEST_RATE_LIMITER');
  const env = isolateEnv({ RATE_LIMITER: lifted, PROTOCOL_RATE_LIMITER: lifted, ...(options.env ?? testEnv()), ...options.bindings });
  const response = await worker.fetch(request, env);
  // Every response a test sees must be one openapi.yaml documents.
  await assertMatchesOpenApi(method, new URL(request.url).pathname, response);
  return response;
}

/** Each contract's REST route and MCP tool, from the registry. */
export const REST_ROUTES = Object.fromEntries(CONTRACTS.map((contract) => [contract.name, contract.route])) as Record<ContractName, string>;
export const TOOLS = Object.fromEntries(CONTRACTS.map((contract) => [contract.name, contract.tool])) as Record<ContractName, string>;

export function restGet(route: string, path: string | null, options: CallOptions = {}): Promise<Response> {
  const query = path === null ? '' : `?path=${encodeURIComponent(path)}`;
  return callWorker(`${route}${query}`, options);
}

export const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

export async function mcpPost(message: unknown, options: CallOptions = {}): Promise<Response> {
  return callWorker('/mcp', {
    ...options,
    method: 'POST',
    headers: { ...MCP_HEADERS, ...options.headers },
    body: JSON.stringify(message),
  });
}

let rpcId = 0;
export async function callTool(name: string, args: unknown, options: CallOptions = {}): Promise<any> {
  const res = await mcpPost({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }, options);
  return res.json();
}

/** Parses the text of a tool result: the payload on success, {error, code} on a tool error. */
export function toolText(rpc: any): any {
  return JSON.parse(rpc.result.content[0].text);
}
