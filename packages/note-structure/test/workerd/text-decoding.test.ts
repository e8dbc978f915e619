/**
 * The inline pass builds heading text from code-unit buffers with workerd's
 * TextDecoder('utf-16le') when the buffer holds no surrogate, and with
 * String.fromCharCode otherwise (the decoder would turn a lone surrogate into
 * U+FFFD, and without ignoreBOM it would drop a leading U+FEFF). These run
 * inside workerd (the root's `worker` project), whose decoder is the one the
 * Worker uses, and analyze notes through the package's entry point.
 */
import { describe, expect, it } from 'vitest';
import { fromCodeUnits } from '../../src/utf16-units';
import { analyzeNote } from '../../src';
import { analyzeWithMdast } from '../../dev/oracle';

const units = (text: string): Uint16Array => Uint16Array.from({ length: text.length }, (_, index) => text.charCodeAt(index));

describe('heading text built from code units in workerd', () => {
  const texts = [
    'plain ascii',
    '\uFEFFleading byte order mark',
    'Latin-1 é ñ ÿ and C1 \u0085',
    'BMP ✓ 漢字 \uFFFD \uFFFF',
    'astral 😀 𝔸 pairs',
    'lone high \uD800 and lone low \uDC00 here',
    'pair split by nothing \uD83D\uDE00 then lone \uD83D',
    '',
  ];

  it('fromCodeUnits is exactly the code units, on both paths', () => {
    for (const text of texts) {
      const buffer = new Uint16Array(text.length + 3);
      buffer.set(units(text));
      expect(fromCodeUnits(buffer, text.length)).toBe(text);
    }
    const long = 'x\u00e9'.repeat(50_000) + '\uD800';
    expect(fromCodeUnits(units(long), long.length)).toBe(long);
  });

  it('headings with edits (emphasis, links, code, escapes, references) read as the oracle reads them', () => {
    for (const text of texts) {
      for (const heading of [`# *a* ${text} [b](c)`, `# \`${text}\` \\* &amp; ![${text}](u)`, `**${text}**\n===`]) {
        const body = `${heading}\n\npara\n`;
        expect(analyzeNote(body).headings.map((each) => each.text)).toEqual(analyzeWithMdast(body).headings.map((each) => each.text));
      }
    }
  });
});
