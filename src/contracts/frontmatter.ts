/**
 * The one decoder for the canister's wire frontmatter (JSON text, sometimes
 * string-wrapped several times, sometimes with escaped quotes or a BOM).
 * It recovers an object whenever either reference decoder (hosted MCP's
 * parseCanisterFrontmatter or REST's materializeWireFrontmatter) would, and
 * otherwise yields {}. Callers read only the fields their contract names.
 */
import type { Frontmatter } from './types';

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

export function decodeWireFrontmatter(wire: unknown): Frontmatter {
  if (wire == null) return {};
  if (isPlainObject(wire)) return wire;
  if (typeof wire !== 'string') return {};

  // Each string layer strictly shrinks the text (and escaping roughly doubles per layer), so
  // unwrapping until an object appears or the text stops shrinking terminates in a few rounds.
  let text = wire.replace(/^\uFEFF/, '').trim();
  while (text !== '') {
    let parsed = tryJson(text);
    if (!parsed.ok && text.includes('\\"')) parsed = tryJson(text.replace(/\\"/g, '"'));
    if (!parsed.ok) return {};
    if (isPlainObject(parsed.value)) return parsed.value;
    if (typeof parsed.value !== 'string') return {};
    const next = parsed.value.replace(/^\uFEFF/, '').trim();
    if (next.length >= text.length) return {};
    text = next;
  }
  return {};
}
