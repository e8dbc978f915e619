/**
 * The one decoder for the canister's wire frontmatter (JSON text, sometimes
 * string-wrapped several times, sometimes with escaped quotes or a BOM).
 *
 * Decision of record: recover an object exactly when
 * either reference decoder would, and never when neither would. The two
 * references, the Knowtation hosted server's MCP and REST decoders, are
 * mirrored below as two small functions, each returning the object it recovers or null where the
 * reference falls back to `{}`; the decoder is "the first that yields an
 * object", else `{}`. Callers read only the fields their contract names.
 *
 * Work stays linear: every JSON string layer is strictly shorter than the
 * text it came from, and escaping makes nested layers shrink geometrically.
 */
import type { Frontmatter } from './types';

const REST_MAX_ROUNDS = 8;

function isPlainObject(value: unknown): value is Frontmatter {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The MCP reference's inner step: parse; an object is the answer; a string
 * result is trimmed and parsed again, at any depth; anything else, or a
 * parse error at any layer, recovers nothing. No `\"` repair inside.
 */
function parseObjectUnwrappingStrings(text: string): Frontmatter | null {
  let current = text;
  for (;;) {
    const parsed = tryJson(current);
    if (!parsed.ok) return null;
    if (isPlainObject(parsed.value)) return parsed.value;
    if (typeof parsed.value !== 'string') return null;
    current = parsed.value.trim();
  }
}

/**
 * Hosted MCP `parseCanisterFrontmatter`: objects pass; a string is trimmed
 * (String.prototype.trim also drops U+FEFF), empty or exactly `{}` recovers
 * nothing; then the inner step on the text; then, when the text holds `\"`,
 * the inner step on the text with every `\"` replaced by `"`. The
 * reference's last step (text quoted at both ends: JSON-decode it once and
 * run the inner step) either repeats the first attempt on the same string or
 * throws (a tool error, no object), so it can never recover an object and
 * is not repeated here.
 */
export function decodeAsHostedMcp(wire: unknown): Frontmatter | null {
  if (wire == null) return null;
  if (isPlainObject(wire)) return wire;
  if (typeof wire !== 'string') return null;
  const text = wire.trim();
  if (text === '' || text === '{}') return null;
  const direct = parseObjectUnwrappingStrings(text);
  if (direct) return direct;
  if (text.includes('\\"')) return parseObjectUnwrappingStrings(text.replace(/\\"/g, '"'));
  return null;
}

/**
 * Hosted REST `materializeWireFrontmatter`: objects pass; a string loses
 * one leading U+FEFF and is trimmed, then at most 8 rounds of JSON.parse:
 * an object is the answer, a string is trimmed and unwrapped (an unchanged
 * text stops), anything else or a parse error recovers nothing. (On a parse
 * error of text starting with `"` the reference re-parses that same text,
 * which fails again; nothing to mirror.)
 */
export function decodeAsHostedRest(wire: unknown): Frontmatter | null {
  if (wire == null) return null;
  if (isPlainObject(wire)) return wire;
  if (typeof wire !== 'string') return null;
  let current = wire.replace(/^\uFEFF/, '').trim();
  if (current === '') return null;
  for (let round = 0; round < REST_MAX_ROUNDS; round += 1) {
    const parsed = tryJson(current);
    if (!parsed.ok) return null;
    if (isPlainObject(parsed.value)) return parsed.value;
    if (typeof parsed.value !== 'string') return null;
    const next = parsed.value.trim();
    if (next === current) return null;
    current = next;
  }
  return null;
}

/** The union of the two references: the first that yields an object, else `{}`. */
export function decodeWireFrontmatter(wire: unknown): Frontmatter {
  return decodeAsHostedMcp(wire) ?? decodeAsHostedRest(wire) ?? {};
}
