/**
 * Keeps responses and openapi.yaml in lock-step: every response the worker
 * suite receives from a documented path is checked against the schema of
 * its operation for that status. An undocumented status, or a body that
 * does not validate, fails the test that produced it.
 */
import { Validator } from '@cfworker/json-schema';
import { parse } from 'yaml';
import openapiText from '../../../openapi.yaml?raw';

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: object }>;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components: Record<string, unknown>;
}

const doc = parse(openapiText) as OpenApiDoc;
const validators = new Map<object, Validator>();
let checked = 0;

function validatorFor(schema: object): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    // $refs point at #/components/...; give the schema a root that holds them.
    validator = new Validator({ ...schema, components: doc.components } as object, '2020-12', false);
    validators.set(schema, validator);
  }
  return validator;
}

/** Follows a local `#/...` reference chain to the response object it names. */
function resolveResponse(response: ResponseObject): ResponseObject {
  let current = response;
  for (let hops = 0; current.$ref && hops < 8; hops += 1) {
    const target = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
    if (!target) throw new Error(`openapi.yaml: unresolved reference ${current.$ref}`);
    current = target as ResponseObject;
  }
  return current;
}

/** The documented path a concrete pathname falls under: itself, or a template whose `{name}` is one segment. */
function documentedPath(pathname: string): string {
  if (doc.paths[pathname]) return pathname;
  for (const template of Object.keys(doc.paths)) {
    if (!template.includes('{')) continue;
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(pathname)) return template;
  }
  return pathname;
}

export function documentedStatuses(pathname: string, method: string): string[] {
  return Object.keys(doc.paths[documentedPath(pathname)]?.[method.toLowerCase()]?.responses ?? {});
}

export async function assertMatchesOpenApi(method: string, pathname: string, response: Response): Promise<void> {
  const operation = doc.paths[documentedPath(pathname)]?.[method.toLowerCase()];
  if (!operation || method === 'OPTIONS') return;
  const declared = operation.responses[String(response.status)];
  if (!declared) {
    throw new Error(`openapi.yaml documents no ${response.status} for ${method} ${pathname}`);
  }
  const schema = resolveResponse(declared).content?.['application/json']?.schema;
  if (!schema) return;
  const text = await response.clone().text();
  const result = validatorFor(schema).validate(JSON.parse(text));
  if (!result.valid) {
    const first = result.errors.slice(0, 3).map((e) => `${e.instanceLocation}: ${e.error}`).join('; ');
    throw new Error(`${method} ${pathname} ${response.status} does not match openapi.yaml: ${first}`);
  }
  checked += 1;
}

export function responsesCheckedAgainstOpenApi(): number {
  return checked;
}
