/**
 * The block scan's container stack (paged records, containers.ts) and its use for block quotes
 * and list items: every stored field reads back across page boundaries, IntStack reads 0 where
 * nothing was set, and notes whose quotes close and reopen at one depth around list items that
 * begin blank (the groupBlankLine serials, never reset per quote) give the oracle's structure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContainerStack, IntStack, newContainer, type Container } from '../src/containers';
import { differential } from './support/differential';

function containerAt(index: number): Container {
  const container = newContainer();
  container.quote = index % 3 === 0;
  container.ordered = index % 5 === 1;
  container.initialBlank = index % 7 === 2;
  container.marker = [0, 42, 43, 45, 46, 41][index % 6] as number;
  container.size = index % 18;
  container.itemLine = index * 7 + 1;
  container.group = index >> 1;
  return container;
}

describe('ContainerStack and IntStack', () => {
  it('read back every stored field across the first page and later pages, after truncation too', () => {
    const stack = new ContainerStack();
    const count = 3000;
    for (let index = 0; index < count; index++) stack.push(containerAt(index));
    stack.truncate(1000);
    for (let index = 1000; index < count; index++) stack.push(containerAt(index));
    const into = newContainer();
    for (let index = 0; index < count; index++) {
      stack.load(index, into);
      expect(into, `entry ${index}`).toEqual({ ...containerAt(index), closeFlow: false });
      expect(stack.isQuote(index)).toBe(index % 3 === 0);
      expect(stack.group(index)).toBe(index >> 1);
    }
    const ints = new IntStack();
    expect(ints.at(5)).toBe(0);
    ints.set(1500, 9);
    expect([ints.at(1500), ints.at(1499), ints.at(100_000)]).toEqual([9, 0, 0]);
    for (let index = 0; index < 2000; index++) ints.push(index + 1);
    expect([ints.length, ints.top(), ints.at(0), ints.at(1500), ints.at(1999)]).toEqual([2000, 2000, 1, 1501, 2000]);
    // Below 0 nothing was set, whatever the pages hold (index & mask would wrap into page 0).
    expect([ints.at(-1), ints.at(-512), new IntStack().top()]).toEqual([0, 0, 0]);
  });
});

describe('block quotes and list items against the oracle', () => {
  it('gives the oracle structure when quotes close and reopen at one depth around items that begin blank', () => {
    // Lines of 0-2 quote markers, then an item start, its indent or nothing, then a short rest.
    const quotes = fc.constantFrom('', '> ', '> > ', '>');
    const item = fc.constantFrom('', '-', '- ', '  ', '   ', '1.', '* ');
    const rest = fc.constantFrom('', '', 'a', '# h', 'b *c*');
    const line = fc.tuple(quotes, item, rest).map(([quote, start, tail]) => quote + start + tail);
    const note = fc.array(line, { minLength: 1, maxLength: 16 }).map((lines) => lines.join('\n'));
    fc.assert(
      fc.property(note, (body) => {
        expect(differential(body), JSON.stringify(body)).toBeNull();
      }),
      { numRuns: 1500, seed: 20261123 },
    );
  }, 60_000);

  it('gives the oracle structure for quotes and items nested past the first page', () => {
    for (const unit of ['> ', '- ', '> - ', '1. > ']) {
      // 600 containers or more (a `1. > ` unit opens two), so every unit crosses the 512-entry page boundary.
      const depth = Math.ceil(1200 / unit.length) * (unit === '1. > ' ? 2 : 1);
      for (const body of [unit.repeat(depth) + 'a\n', unit.repeat(depth) + '# h\n\n' + unit.repeat(depth >> 1) + '\n' + unit.repeat(depth) + 'b\n']) {
        expect(differential(body), unit).toBeNull();
      }
    }
  }, 60_000);
});
