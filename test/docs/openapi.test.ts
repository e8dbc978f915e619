/**
 * openapi.yaml in lock-step with the code: the same routes as the router's
 * ROUTES table, payload schemas equal to the registry's output schemas, an Error
 * code enum equal to the codes the source can emit, examples and real
 * handler answers that validate against the documented response schemas,
 * and the shared corpus payloads valid under the documented schemas.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator, type Schema } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONTRACT_NAMES, type ContractName } from '../../src/contracts';
import { CONTRACTS as REGISTRY, contractNamed } from '../../src/contracts/registry';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config';
import { CONFIG_REASON_TEXT } from '../../src/config-report';
import { buildRouter, ROUTES, type RouteSpec } from '../../src/http/router';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const openapiText = readFileSync(path.join(repoRoot, 'openapi.yaml'), 'utf8');
/** Parsed twice: `spec` is only read; the validators get a copy of their own, which they annotate. */
const loadSpec = (): any => parse(openapiText);
const spec = loadSpec();

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SPEC_BASE = 'https://knowtation-edge.test/openapi.yaml';

const COMPONENT_REF = '#/components/schemas/';

/** The payload component a contract's REST route documents for 200, by name (the registry's route, openapi.yaml's answer). */
function componentOf(name: ContractName): string {
  const { route } = contractNamed(name);
  const ref: unknown = spec.paths[route]?.get?.responses?.['200']?.content?.['application/json']?.schema?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_REF)) throw new Error(`openapi.yaml documents no payload component for ${name} at GET ${route}`);
  return ref.slice(COMPONENT_REF.length);
}

/** A router path in OpenAPI's template form: the route table's `:vault` is `{vault_id}`. */
const documentedPathOf = (route: RouteSpec): string => route.path.replace(/:vault\b/g, '{vault_id}');
/** A request path that reaches the route: a valid vault id where the route takes one. */
const concrete = (route: RouteSpec): string => route.path.replace(/:vault\b/g, 'default');
const isContractRoute = (route: RouteSpec): boolean => route.surface === 'rest' && (CONTRACT_NAMES as string[]).includes(route.op);

const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** A draft 2020-12 validator for the schema at `pointer` inside openapi.yaml, with all of its $refs resolvable. */
function specValidator(pointer: string): Validator {
  const validator = new Validator({ $ref: `${SPEC_BASE}#${pointer}` } as Schema, '2020-12', false);
  validator.addSchema(validationDocument as Schema, SPEC_BASE);
  return validator;
}

/** The validator indexes every object it is given; example values (JSON-RPC `id: 1`) would read as schema ids. */
function withoutExamples(value: any): any {
  if (Array.isArray(value)) return value.map(withoutExamples);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'example' && key !== 'examples')
      .map(([key, child]) => [key, withoutExamples(child)]),
  );
}

/** The document every validator resolves $refs in, examples removed. */
const validationDocument = withoutExamples(loadSpec());

function errorsOf(validator: Validator, value: unknown): string[] {
  return validator.validate(value).errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

/** Follows a local `$ref` to its target object; returns the pointer of the object actually used. */
function deref(pointer: string): { pointer: string; value: any } {
  let value = pointer.split('/').slice(1).reduce((node: any, segment) => node?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  while (value && typeof value.$ref === 'string' && value.$ref.startsWith('#/')) {
    pointer = value.$ref.slice(1);
    value = deref(pointer).value;
  }
  return { pointer, value };
}

/** The documented response of an operation for one status: its JSON schema pointer, examples and headers. */
function documentedResponse(routePath: string, method: string, status: number) {
  const responsePointer = `/paths/${escapePointer(routePath)}/${method}/responses/${status}`;
  const response = deref(responsePointer);
  if (!response.value) return null;
  const json = response.value.content?.['application/json'];
  const examples: unknown[] = [
    ...(json && 'example' in json ? [json.example] : []),
    ...Object.values(json?.examples ?? {}).map((example: any) => example.value),
  ];
  return {
    schemaPointer: json ? `${response.pointer}/content/application~1json/schema` : null,
    examples,
    headers: Object.fromEntries(
      Object.entries(response.value.headers ?? {}).map(([name, header]: [string, any]) => [
        name,
        header.$ref ? deref(header.$ref.slice(1)).value : header,
      ]),
    ),
  };
}

/**
 * A payload component in the source schema's form. openapi.yaml gives each of a payload's `$defs` a
 * component of its own, named the payload's component and the def (DocumentTree's `node` is
 * DocumentTreeNode); the source schema keeps them under `$defs`. Other refs are left as they are.
 */
function asSourceForm(components: any, component: string): unknown {
  const defs = new Map<string, string>();
  const toSourceRefs = (value: any): any => {
    if (Array.isArray(value)) return value.map(toSourceRefs);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => {
        const ownDef = key === '$ref' && typeof child === 'string' && child.startsWith(COMPONENT_REF + component) && child !== COMPONENT_REF + component;
        if (!ownDef) return [key, toSourceRefs(child)];
        const target = child.slice(COMPONENT_REF.length);
        const def = target.charAt(component.length).toLowerCase() + target.slice(component.length + 1);
        defs.set(target, def);
        return [key, `#/$defs/${def}`];
      }),
    );
  };
  const schema = toSourceRefs(components[component]);
  const $defs: Record<string, unknown> = {};
  // A def's own refs may name further defs: the map grows while it is read.
  for (const [target, def] of defs) $defs[def] = toSourceRefs(components[target]);
  return defs.size === 0 ? schema : { ...schema, $defs };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : [],
  );
}

/** Every `code` a response body can carry, read from the source: restError's table and every errorResponse(status, CODE, ...) call. */
function emittedErrorCodes(): Set<string> {
  const codes = new Set<string>();
  const errorsSource = readFileSync(path.join(repoRoot, 'src/errors.ts'), 'utf8');
  const restErrorBody = /export function restError[\s\S]*?\n}\n/.exec(errorsSource)?.[0] ?? '';
  for (const match of restErrorBody.matchAll(/code: '([A-Z_]+)'/g)) codes.add(match[1]);
  for (const file of sourceFiles(path.join(repoRoot, 'src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/errorResponse\(\s*\d{3}\s*,\s*'([A-Z_]+)'/g)) codes.add(match[1]);
  }
  return codes;
}

describe('openapi.yaml', () => {
  it('is OpenAPI 3.1.0 and every local $ref resolves', () => {
    expect(spec.openapi).toBe('3.1.0');
    const refs: string[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value !== null && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) {
          if (key === '$ref' && typeof child === 'string') refs.push(child);
          else collect(child);
        }
      }
    };
    collect(spec);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\//);
      expect(deref(ref.slice(1)).value, ref).toBeTruthy();
    }
  });

  it('lists exactly the (path, method) pairs of the router ROUTES table', () => {
    const documented = Object.entries(spec.paths as Record<string, Record<string, unknown>>)
      .flatMap(([routePath, item]) => Object.keys(item).filter((key) => HTTP_METHODS.includes(key)).map((method) => `${method.toUpperCase()} ${routePath}`))
      .sort();
    const routed = ROUTES.map((route) => `${route.method} ${documentedPathOf(route)}`).sort();
    expect(documented).toEqual(routed);
  });

  it('requires the bearer JWT on the contract routes and /mcp, and on nothing else', () => {
    expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    for (const route of ROUTES) {
      const operation = spec.paths[documentedPathOf(route)][route.method.toLowerCase()];
      // The scooling smoke bridge refuses caller credentials; it owns its own token.
      const protectedRoute = route.surface === 'mcp' || isContractRoute(route);
      expect(operation.security, route.path).toEqual(protectedRoute ? [{ bearerAuth: [] }] : []);
    }
  });

  it('documents each REST route with path and X-Vault-Id, the payload on 200 and every error status', () => {
    const restRoutes = ROUTES.filter(isContractRoute);
    expect(restRoutes.map((route) => route.op).sort()).toEqual([...CONTRACT_NAMES].sort());
    for (const route of restRoutes) {
      const operation = spec.paths[route.path].get;
      const parameters = operation.parameters.map((parameter: any) => deref(parameter.$ref.slice(1)).value);
      expect(parameters).toContainEqual(expect.objectContaining({ name: 'path', in: 'query', required: true }));
      expect(parameters).toContainEqual(expect.objectContaining({ name: 'X-Vault-Id', in: 'header', required: false }));
      const contract = route.op as ContractName;
      expect(spec.components.schemas[componentOf(contract)].properties.schema.const, route.path).toBe(contractNamed(contract).schema);
      for (const status of [400, 401, 403, 404, 405, 422, 429, 500, 502, 503, 504]) {
        expect(documentedResponse(route.path, 'get', status)?.schemaPointer, `${route.path} ${status}`).toBeTruthy();
      }
      expect(documentedResponse(route.path, 'get', 401)?.headers).toHaveProperty('WWW-Authenticate');
      expect(documentedResponse(route.path, 'get', 405)?.headers).toHaveProperty('Allow');
      expect(documentedResponse(route.path, 'get', 429)?.headers).toHaveProperty('Retry-After');
    }
  });

  it('documents /mcp as a POST with every status the adapter and the SDK transport produce', () => {
    const operation = spec.paths['/mcp'].post;
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '202', '400', '401', '403', '404', '405', '406', '413', '415', '429', '500', '502', '503']);
    expect(documentedResponse('/mcp', 'post', 429)?.headers).toHaveProperty('Retry-After');
    expect(documentedResponse('/mcp', 'post', 401)?.headers).toHaveProperty('WWW-Authenticate');
    expect(documentedResponse('/mcp', 'post', 405)?.headers.Allow.schema.const).toBe('POST, OPTIONS');
    for (const { tool } of REGISTRY) expect(operation.description).toContain(`\`${tool}\``);
  });
});

describe('payload schemas', () => {
  it.each(CONTRACT_NAMES)("%s: the documented payload equals the registry's output schema", (name) => {
    expect(asSourceForm(spec.components.schemas, componentOf(name))).toEqual(contractNamed(name).outputSchema);
  });

  it('pin body_returned and snippet_returned to false and heading levels to 1..6', () => {
    const section = spec.components.schemas.SectionSource.properties.sections.items.properties;
    expect(section.body_returned).toEqual({ type: 'boolean', const: false });
    expect(section.snippet_returned).toEqual({ type: 'boolean', const: false });
    const level = { type: 'integer', minimum: 1, maximum: 6 };
    expect(section.level).toEqual(level);
    expect(spec.components.schemas.NoteOutline.properties.headings.items.properties.level).toEqual(level);
    expect(spec.components.schemas.DocumentTreeNode.properties.level).toEqual(level);
  });

  it('reject a payload that carries a body', () => {
    for (const name of CONTRACT_NAMES) {
      const validator = specValidator(`/components/schemas/${componentOf(name)}`);
      expect(validator.validate({ schema: 'x', body: 'secret' }).valid).toBe(false);
    }
  });
});

describe('Error schema', () => {
  it('documents the local /health configuration report with the source\'s variable and reason vocabularies', () => {
    const problem = spec.components.schemas.Health.oneOf[1].properties.config.properties.problems.items.properties;
    expect(problem.variable.enum).toEqual([...CONFIG_VARIABLES]);
    expect(problem.reason.enum).toEqual(Object.keys(CONFIG_REASON_TEXT));
  });

  it('has a code enum equal to the codes the source emits', () => {
    const emitted = emittedErrorCodes();
    expect(emitted.size).toBeGreaterThanOrEqual(12);
    expect(new Set(spec.components.schemas.Error.properties.code.enum)).toEqual(emitted);
  });

  it('documents the MCP tool error code the adapter emits', () => {
    const mcpSource = readFileSync(path.join(repoRoot, 'src/http/mcp-server.ts'), 'utf8');
    const toolCodes = [...mcpSource.matchAll(/code: '([A-Z_]+)'/g)].map((match) => match[1]);
    expect(new Set(toolCodes)).toEqual(new Set([spec.components.schemas.McpToolError.properties.code.const]));
  });
});

describe('documented examples and real answers', () => {
  it('every response example validates against the schema documented for its status', () => {
    let checked = 0;
    for (const [routePath, item] of Object.entries(spec.paths as Record<string, Record<string, any>>)) {
      for (const method of Object.keys(item).filter((key) => HTTP_METHODS.includes(key))) {
        for (const status of Object.keys(item[method].responses)) {
          const documented = documentedResponse(routePath, method, Number(status));
          if (!documented?.schemaPointer) continue;
          const validator = specValidator(documented.schemaPointer);
          for (const example of documented.examples) {
            expect(errorsOf(validator, example), `${method} ${routePath} ${status}`).toEqual([]);
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('the tools/call examples are ToolCallResults, and the error text is an McpToolError', () => {
    const examples = spec.paths['/mcp'].post.responses['200'].content['application/json'].examples;
    const result = specValidator('/components/schemas/ToolCallResult');
    expect(errorsOf(result, examples.toolSuccess.value.result)).toEqual([]);
    expect(errorsOf(result, examples.toolError.value.result)).toEqual([]);
    expect(result.validate({ content: [{ type: 'text', text: '{}' }], isError: false }).valid).toBe(false);
    const successText = JSON.parse(examples.toolSuccess.value.result.content[0].text);
    expect(successText).toEqual(examples.toolSuccess.value.result.structuredContent);
    expect(errorsOf(specValidator('/components/schemas/NoteOutline'), successText)).toEqual([]);
    const toolError = specValidator('/components/schemas/McpToolError');
    expect(errorsOf(toolError, JSON.parse(examples.toolError.value.result.content[0].text))).toEqual([]);
    expect(toolError.validate({ error: 'Upstream 404: {"error":"Not found"}', code: 'UPSTREAM_ERROR' }).valid).toBe(false);
  });

  it('with an invalid configuration every route answers a status and body documented for it', async () => {
    const router = buildRouter();
    for (const route of ROUTES) {
      const request = new Request(`https://edge.example${concrete(route)}?path=a.md`, {
        method: route.method,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: route.method === 'POST' ? '{}' : undefined,
      });
      const { response } = await router({ request, url: new URL(request.url), config: null });
      const documented = documentedResponse(documentedPathOf(route), route.method.toLowerCase(), response.status);
      expect(documented, `${route.method} ${route.path} answered ${response.status}`).not.toBeNull();
      expect(errorsOf(specValidator(documented!.schemaPointer!), await response.json()), route.path).toEqual([]);
    }
  });

  it('another method on a routed path is the documented 405 with its Allow header', async () => {
    const loaded = loadConfig({
      CANISTER_URL: 'https://canister.example',
      SESSION_SECRET: 'x'.repeat(32),
      PUBLIC_ORIGIN: 'https://edge.example',
      OAUTH_AUTHORIZATION_SERVER: 'https://hub.example',
      RATE_LIMITER: { limit: async () => ({ success: true }) },
      PROTOCOL_RATE_LIMITER: { limit: async () => ({ success: true }) },
    });
    expect(loaded.ok).toBe(true);
    const config = loaded.ok ? loaded.config : null;
    const router = buildRouter();
    for (const route of ROUTES) {
      const method = route.method === 'GET' ? 'DELETE' : 'GET';
      const request = new Request(`https://edge.example${concrete(route)}`, { method });
      const { response } = await router({ request, url: new URL(request.url), config });
      expect(response.status).toBe(405);
      const documented = documentedResponse(documentedPathOf(route), route.method.toLowerCase(), 405)!;
      expect(response.headers.get('Allow')).toBe(documented.headers.Allow.schema.const);
      expect(errorsOf(specValidator(documented.schemaPointer!), await response.json()), route.path).toEqual([]);
    }
  });

  it('an unknown route is the JSON 404 the description names', async () => {
    const request = new Request('https://edge.example/api/v1/nothing-here');
    const { response } = await buildRouter()({ request, url: new URL(request.url), config: null });
    expect(response.status).toBe(404);
    const body = await response.json();
    expect(body).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
    expect(spec.info.description).toContain(JSON.stringify(body));
  });
});

const corpusDir = path.resolve(repoRoot, '../shared/corpus');
const expectedFile = path.join(corpusDir, 'knowtation-expected.json');
const corpusPresent = existsSync(expectedFile);
if (!corpusPresent) console.warn(`openapi corpus check: skipped, shared corpus not found at ${expectedFile}`);

describe.skipIf(!corpusPresent)('shared corpus payloads', () => {
  it('validate against the openapi payload schemas', () => {
    const expected: Array<Partial<Record<string, unknown>>> = JSON.parse(readFileSync(expectedFile, 'utf8'));
    let validated = 0;
    for (const name of CONTRACT_NAMES) {
      const validator = specValidator(`/components/schemas/${componentOf(name)}`);
      for (const [index, entry] of expected.entries()) {
        const payload = entry[contractNamed(name).tool];
        if (payload === undefined) continue;
        expect(errorsOf(validator, payload), `${name} #${index}`).toEqual([]);
        validated += 1;
      }
    }
    expect(validated).toBeGreaterThan(0);
  });
});
