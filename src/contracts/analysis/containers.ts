/**
 * The open block quotes and list items of the block scan, as columns of
 * typed arrays rather than one object each, so a note of a million `> `
 * or `- ` costs 16 bytes per container and no per-container garbage.
 * Invariant: entry i holds exactly the fields of the Container it stores.
 * Linear bound: O(1) amortized per push, load, store; truncate is O(1).
 */

export interface Container {
  quote: boolean;
  ordered: boolean;
  /** Bullet char, or the ordered delimiter (`.` / `)`); 0 until the first item sets it. */
  marker: number;
  /** Columns a line needs (after outer containers) to stay in the current item. */
  size: number;
  /** The current item began with a blank rest and no non-blank line has continued it since. */
  initialBlank: boolean;
  /** Serial of the line the current item began on. */
  itemLine: number;
  /** Block quotes below this container in the stack (its group, for blank-line serials). */
  group: number;
  /** Set by a continuation that found a sibling item (transient, never stored). */
  closeFlow: boolean;
}

export function newContainer(): Container {
  return { quote: false, ordered: false, marker: 0, size: 0, initialBlank: false, itemLine: 0, group: 0, closeFlow: false };
}

const QUOTE = 1;
const ORDERED = 2;
const INITIAL_BLANK = 4;
const MARKER_SHIFT = 8;

export class ContainerStack {
  length = 0;
  private flags: Int32Array = new Int32Array(16);
  private sizes: Int32Array = new Int32Array(16);
  private itemLines: Int32Array = new Int32Array(16);
  private groups: Int32Array = new Int32Array(16);

  isQuote(index: number): boolean {
    return (this.flags[index] & QUOTE) !== 0;
  }

  group(index: number): number {
    return this.groups[index];
  }

  load(index: number, into: Container): void {
    const flags = this.flags[index];
    into.quote = (flags & QUOTE) !== 0;
    into.ordered = (flags & ORDERED) !== 0;
    into.initialBlank = (flags & INITIAL_BLANK) !== 0;
    into.marker = flags >>> MARKER_SHIFT;
    into.size = this.sizes[index];
    into.itemLine = this.itemLines[index];
    into.group = this.groups[index];
    into.closeFlow = false;
  }

  store(index: number, from: Container): void {
    this.flags[index] =
      (from.quote ? QUOTE : 0) | (from.ordered ? ORDERED : 0) | (from.initialBlank ? INITIAL_BLANK : 0) | (from.marker << MARKER_SHIFT);
    this.sizes[index] = from.size;
    this.itemLines[index] = from.itemLine;
    this.groups[index] = from.group;
  }

  push(from: Container): void {
    if (this.length === this.flags.length) this.grow();
    this.store(this.length++, from);
  }

  truncate(length: number): void {
    if (length < this.length) this.length = length;
  }

  private grow(): void {
    const capacity = this.flags.length * 2;
    const widen = (column: Int32Array): Int32Array => {
      const wider = new Int32Array(capacity);
      wider.set(column);
      return wider;
    };
    this.flags = widen(this.flags);
    this.sizes = widen(this.sizes);
    this.itemLines = widen(this.itemLines);
    this.groups = widen(this.groups);
  }
}

/** A growable stack of int32 values (4 bytes each; no boxed numbers). O(1) amortized per push. */
export class IntStack {
  length = 0;
  private items: Int32Array = new Int32Array(16);

  /** The value at `index`; 0 where nothing was set (also past the capacity). */
  at(index: number): number {
    return index < this.items.length ? this.items[index] : 0;
  }

  set(index: number, value: number): void {
    while (index >= this.items.length) this.grow();
    this.items[index] = value;
  }

  push(value: number): void {
    this.set(this.length, value);
    this.length++;
  }

  top(): number {
    return this.items[this.length - 1];
  }

  pop(): void {
    this.length--;
  }

  private grow(): void {
    const wider = new Int32Array(this.items.length * 2);
    wider.set(this.items);
    this.items = wider;
  }
}
