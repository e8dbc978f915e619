/**
 * Whether a value validates against one of the contracts' output JSON Schemas (src/contracts/schemas.ts,
 * draft 2020-12), for the keywords those schemas use: type, const, properties, required,
 * additionalProperties: false, items, minItems, maxItems, minLength, maxLength (in code points),
 * pattern (a `u` regular expression), minimum, maximum and `$ref` into the root's `$defs`.
 * Invariant: it fails closed; a keyword outside that list, or a form of one it does not read
 * (an `additionalProperties` other than false, a `$ref` elsewhere), makes the value not conform.
 */
type JsonSchema = Readonly<Record<string, unknown>>;

/** The keywords read here (test/src/contracts/output-conformance.test.ts holds the schemas to them). */
export const OUTPUT_SCHEMA_KEYWORDS = [
  '$defs',
  '$ref',
  'type',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
] as const;

const patterns = new Map<string, RegExp>();

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
    case 'string':
    case 'boolean':
      return typeof value === type;
    default:
      return false;
  }
}

/** JSON Schema string lengths count code points (a surrogate pair is one). */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function matches(pattern: string, text: string): boolean {
  let regex = patterns.get(pattern);
  if (regex === undefined) patterns.set(pattern, (regex = new RegExp(pattern, 'u')));
  return regex.test(text);
}

function meetsKeyword(keyword: string, expected: unknown, schema: JsonSchema, value: unknown, root: JsonSchema): boolean {
  const text = typeof value === 'string' ? value : null;
  const count = typeof expected === 'number' ? expected : NaN;
  switch (keyword) {
    case '$defs':
      return schema === root;
    case '$ref': {
      const name = typeof expected === 'string' ? /^#\/\$defs\/([^/~]+)$/.exec(expected)?.[1] : undefined;
      const target = name !== undefined && isObject(root.$defs) ? root.$defs[name] : undefined;
      return isObject(target) && conformsTo(target, value, root);
    }
    case 'type':
      return (Array.isArray(expected) ? expected : [expected]).some((type) => hasType(value, type));
    case 'const':
      return (expected === null || typeof expected !== 'object') && value === expected;
    case 'properties':
      return (
        isObject(expected) &&
        (!isObject(value) || Object.entries(expected).every(([key, sub]) => !Object.hasOwn(value, key) || (isObject(sub) && conformsTo(sub, value[key], root))))
      );
    case 'required':
      return Array.isArray(expected) && (!isObject(value) || expected.every((key) => typeof key === 'string' && Object.hasOwn(value, key)));
    case 'additionalProperties': {
      const declared = isObject(schema.properties) ? schema.properties : {};
      return expected === false && (!isObject(value) || Object.keys(value).every((key) => Object.hasOwn(declared, key)));
    }
    case 'items':
      return isObject(expected) && (!Array.isArray(value) || value.every((item) => conformsTo(expected, item, root)));
    case 'minItems':
      return !Array.isArray(value) || value.length >= count;
    case 'maxItems':
      return !Array.isArray(value) || value.length <= count;
    case 'minLength':
      return text === null || codePoints(text) >= count;
    case 'maxLength':
      return text === null || codePoints(text) <= count;
    case 'pattern':
      return typeof expected === 'string' && (text === null || matches(expected, text));
    case 'minimum':
      return typeof value !== 'number' || value >= count;
    case 'maximum':
      return typeof value !== 'number' || value <= count;
    default:
      return false;
  }
}

/** True when `value` validates against `schema`; `root` holds the `$defs` a `$ref` names. */
export function conformsTo(schema: JsonSchema, value: unknown, root: JsonSchema = schema): boolean {
  for (const keyword in schema) {
    if (!meetsKeyword(keyword, schema[keyword], schema, value, root)) return false;
  }
  return true;
}
