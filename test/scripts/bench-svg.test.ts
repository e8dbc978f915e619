// The bench's pictures (scripts/bench/svg.ts): plain SVG drawn from its figures, every name made safe
// for XML (pathological shapes are named by their Markdown: `<!A`, `&amp;`).
import { describe, expect, it } from 'vitest';
import { escapeXml, floorsChart, linearChart, niceMax } from '../../scripts/bench/svg';
import type { SizeRow } from '../../scripts/bench/note-size';

const SIZES = [125_000, 250_000, 500_000, 1_000_000];
const row = (name: string, perK: number, growth = 2, withFloor = false): SizeRow => ({
  name,
  ours: SIZES.map((chars) => (chars / 1000) * perK),
  floor: withFloor ? SIZES.map((chars) => chars / 200_000) : null,
  spreadAtCap: { low: 0, high: 0 },
  growth,
});

/** The text between tags: no raw `<` or a `&` that starts no entity may stand in it. */
const textContents = (svg: string): string[] => [...svg.matchAll(/>([^<]*)</g)].map((match) => match[1] as string);

/** Each element's attribute names repeated within it (XML forbids a repeated attribute). */
const repeatedAttributes = (svg: string): string[] =>
  [...svg.matchAll(/<[a-z]+((?:\s+[a-z-]+="[^"]*")*)\s*\/?>/g)].flatMap((match) => {
    const names = [...(match[1] as string).matchAll(/([a-z-]+)=/g)].map((name) => name[1] as string);
    return names.filter((name, at) => names.indexOf(name) !== at);
  });

describe('the bench pictures', () => {
  it('escapes what XML reserves', () => {
    expect(escapeXml('declaration openers `<!A` & "quotes" >')).toBe('declaration openers `&lt;!A` &amp; &quot;quotes&quot; &gt;');
  });

  it('rounds an axis up to an end whose quarters are round', () => {
    expect([niceMax(0.7), niceMax(1), niceMax(1.1), niceMax(3), niceMax(60), niceMax(110), niceMax(130)]).toEqual([0.8, 1, 1.2, 4, 60, 120, 160]);
  });

  it('draws CPU against size: a line per row, the read floor, the real notes and the slowest row, and the bound', () => {
    const rows = [row('real notes, joined', 0.01, 2, true), row('paragraphs of `&amp;`', 0.05), row('declaration openers `<!A` in an ATX heading', 0.09, 2.05)];
    const svg = linearChart({ sizes: SIZES, rows, boundMs: 100, run: '2026-12-07' });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    // Each row, then the real notes, the floor and the slowest row drawn over them.
    expect(svg.match(/<polyline /g)).toHaveLength(rows.length + 3);
    expect(svg).toContain('bound at 1M: 100 ms');
    expect(svg).toContain('slowest at 1M:');
    expect(svg).toContain('>declaration openers `&lt;!A` in an<');
    expect(svg).toContain('steepest growth per doubling 2.05x');
    for (const text of textContents(svg)) expect(text).not.toMatch(/&(?!(amp|lt|gt|quot);)/);
    expect(repeatedAttributes(svg)).toEqual([]);
  });

  it('draws our costs beside the floors: two bars per comparison, in two panels', () => {
    const svg = floorsChart({
      run: '2026-12-07',
      warm: [{ what: 'REST read of a real note', ours: 1.7, floor: 1.1, floorName: 'read floor' }],
      first: [
        { what: 'REST read', ours: 8, floor: 5, floorName: 'read floor' },
        { what: 'MCP call 2026-07-28', ours: 60, floor: 30, floorName: 'MCP floor' },
      ],
    });
    expect(svg.match(/<rect x="250"/g)).toHaveLength(6);
    expect(svg).toContain('ours 1.70 ms');
    expect(svg).toContain('MCP floor 30.00 ms');
    expect(repeatedAttributes(svg)).toEqual([]);
  });
});
