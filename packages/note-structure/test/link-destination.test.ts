/**
 * The one link destination scanner (CommonMark 0.31.2, 6.3 Links: "link destination"; micromark's
 * factoryDestination), as both its callers use it: a link resource's destination (`[x](D)`, paren
 * depth limited to 32 by micromark) and a definition's (`[a]: D`, no limit). Held to micromark
 * itself: D is taken whole as the destination exactly when micromark makes `[x](D)` one link, or
 * `[a]: D` one definition.
 */
import fc from 'fast-check';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { describe, expect, it } from 'vitest';
import {
  NO_PAREN_LIMIT,
  RESOURCE_PAREN_DEPTH,
  ScanStop,
  scanEnclosedDestination,
  scanRawDestination,
  startsRawDestination,
} from '../src/link-destination';

type Context = 'resource' | 'definition';

/** Where our scanner ends the destination that starts `text` (-1: none), as the caller in `context` asks. */
function ours(text: string, context: Context): number {
  const first = text.length > 0 ? text.charCodeAt(0) : -1;
  if (first === 0x3c) return scanEnclosedDestination(text, 1);
  if (!startsRawDestination(first)) return -1;
  const limit = context === 'resource' ? RESOURCE_PAREN_DEPTH : NO_PAREN_LIMIT;
  return scanRawDestination(text, 0, limit, text.length + 1, new ScanStop());
}

/** Whether our scanner takes `destination` whole: up to the resource's `)`, or up to the end of the definition. */
function oursWhole(destination: string, context: Context): boolean {
  return ours(context === 'resource' ? `${destination})` : destination, context) === destination.length;
}

/** Whether micromark makes `[x](D)` one link (resource) or `[a]: D` one definition. */
function micromarkWhole(destination: string, context: Context): boolean {
  const markdown = context === 'resource' ? `[x](${destination})` : `[a]: ${destination}`;
  const root = fromMarkdown(markdown);
  if (context === 'definition') return root.children.length === 1 && root.children[0]?.type === 'definition';
  const paragraph = root.children[0];
  if (root.children.length !== 1 || paragraph?.type !== 'paragraph' || paragraph.children.length !== 1) return false;
  const link = paragraph.children[0];
  return link?.type === 'link' && link.position?.end.offset === markdown.length;
}

const CONTEXTS: Context[] = ['resource', 'definition'];

describe('link destination scanner (CommonMark 6.3, micromark factoryDestination)', () => {
  it.each([
    // Raw: balanced parens, escapes, non-ASCII, NUL (micromark reads it as U+FFFD).
    ['a', true],
    ['/url?q=1#x', true],
    ['a(b)c', true],
    ['((a))', true],
    ['a\\(b', true],
    ['a\\)b', true],
    ['é', true],
    ['a\u0000b', true],
    // Enclosed: anything but `<`, `>` unescaped and line endings, spaces included, empty included.
    ['<a b>', true],
    ['<>', true],
    ['<a\\>b>', true],
    ['<a\\<b>', true],
    ['<a(b>', true],
  ])('takes %j whole in both contexts', (destination, whole) => {
    for (const context of CONTEXTS) {
      expect(oursWhole(destination, context), context).toBe(whole);
      expect(micromarkWhole(destination, context), `micromark, ${context}`).toBe(whole);
    }
  });

  it.each([
    // Unbalanced parens, a control char, DEL, an escaped backslash before `)`, `<` or a line ending in an enclosed one, unclosed.
    'a(b',
    'a\u0001b',
    'a\u007fb',
    'a\\\\)b',
    '<a<b>',
    '<a\nb>',
    '<a',
    '<a\\>',
  ])('refuses to take %j whole in both contexts', (destination) => {
    for (const context of CONTEXTS) {
      expect(oursWhole(destination, context), context).toBe(false);
      expect(micromarkWhole(destination, context), `micromark, ${context}`).toBe(false);
    }
  });

  it('ends a raw destination at a space, a tab or a line ending, and at a `)` that closes nothing', () => {
    for (const [text, end] of [
      ['a b', 1],
      ['a\tb', 1],
      ['a\nb', 1],
      ['a)b', 1],
      ['(a))', 3],
    ] as const) {
      expect(ours(text, 'resource'), text).toBe(end);
      expect(ours(text, 'definition'), text).toBe(end);
    }
    // Whitespace inside open parens is refused, not an end.
    expect(ours('(a b)', 'definition')).toBe(-1);
  });

  it('limits paren depth to 32 in a resource only (micromark: 32 for resources, none for definitions)', () => {
    const nested = (depth: number) => `${'('.repeat(depth)}a${')'.repeat(depth)}`;
    expect(oursWhole(nested(RESOURCE_PAREN_DEPTH), 'resource')).toBe(true);
    expect(micromarkWhole(nested(RESOURCE_PAREN_DEPTH), 'resource')).toBe(true);
    expect(oursWhole(nested(RESOURCE_PAREN_DEPTH + 1), 'resource')).toBe(false);
    expect(micromarkWhole(nested(RESOURCE_PAREN_DEPTH + 1), 'resource')).toBe(false);
    expect(oursWhole(nested(200), 'definition')).toBe(true);
    expect(micromarkWhole(nested(200), 'definition')).toBe(true);
  });

  it('refuses to start a raw destination at a space, a `)`, a control char or no char, and starts one at NUL', () => {
    for (const code of [0x20, 0x29, 0x01, 0x09, 0x0a, 0x7f, -1, Number.NaN]) expect(startsRawDestination(code), String(code)).toBe(false);
    for (const code of [0x00, 0x61, 0x28, 0x3c, 0xe9]) expect(startsRawDestination(code), String(code)).toBe(true);
  });

  it('stops undecided past its budget, and says where every scan stopped reading', () => {
    const stop = new ScanStop();
    expect(scanRawDestination('abcdef', 0, RESOURCE_PAREN_DEPTH, 3, stop)).toBe(-2);
    expect(stop.at).toBe(3);
    expect(scanRawDestination('ab cd', 0, RESOURCE_PAREN_DEPTH, 64, stop)).toBe(2);
    expect(stop.at).toBe(3);
    expect(scanRawDestination('a\u0001b', 0, RESOURCE_PAREN_DEPTH, 64, stop)).toBe(-1);
    expect(stop.at).toBe(2);
  });

  it('agrees with micromark on generated destinations, in both contexts', () => {
    const unit = fc.constantFrom('a', 'é', '(', ')', '\\', '\\(', '\\)', '\\\\', '<', '>', '\u0001', '\u007f', '\u0000', ' ', '\t', '\n');
    fc.assert(
      fc.property(fc.boolean(), fc.array(unit, { minLength: 1, maxLength: 12 }), (enclosed, units) => {
        const body = units.join('');
        // A destination followed by whitespace may go on with a title: whitespace stays only inside an
        // enclosed one, which ends in `>` (so what follows an earlier `>` is never whitespace alone).
        const destination = enclosed ? `<${body}>` : body.replace(/[ \t\n]/g, 'a');
        for (const context of CONTEXTS) {
          if (context === 'resource' && !enclosed && destination.startsWith('<')) continue;
          expect(oursWhole(destination, context), `${context} ${JSON.stringify(destination)}`).toBe(micromarkWhole(destination, context));
        }
      }),
      { seed: 33, numRuns: 3000 },
    );
  });
});
