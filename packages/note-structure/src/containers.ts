/**
 * The open block quotes and list items of the block scan, as pages of Int32Array
 * records rather than one object each, so a note of a million `> ` or `- ` costs 12 bytes per
 * container, no per-container garbage, and no copy when the stack deepens (a doubling column
 * would hold the old and the new copy at once).
 * Invariant: entry i holds exactly the fields of the Container it stores; IntStack.at reads 0
 * wherever nothing was set.
 * Linear bound: O(1) amortized per push, load, store, set, at (the first page doubles up to
 * PAGE_SIZE entries, then one new page per PAGE_SIZE entries); truncate is O(1).
 */

import * as growth from './growth';

// Imported values are bound once, at load (see chars.ts).
const { grown } = growth;

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

// Flag bits of an entry.
const QUOTE_FLAG = 1;
const ORDERED_FLAG = 2;
const INITIAL_BLANK_FLAG = 4;
/** The bullet char or ordered delimiter (ASCII) sits in bits 8-15 of the flags word. */
const MARKER_SHIFT = 8;
const MARKER_MASK = 0xff;
/** The size (at most 3 + 10 + 4 columns: indent, marker, spaces) sits from bit 16 up. */
const SIZE_SHIFT = 16;

/**
 * Entries per page (a power of two). The first page starts at FIRST_PAGE entries and doubles
 * (a copy of at most PAGE_SIZE / 2 entries) until it is full size, so a note with a few
 * containers allocates little; every later page is full size, never copied or freed while its
 * stack lives.
 */
const PAGE_BITS = 9;
const PAGE_SIZE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_SIZE - 1;
const FIRST_PAGE = 4;
const NO_PAGE = new Int32Array(0);

/** `pages` with room for one more entry of `stride` ints after `capacity` entries; the new capacity. */
function addRoom(pages: Int32Array[], capacity: number, stride: number): number {
  if (capacity === 0) {
    pages.push(new Int32Array(FIRST_PAGE * stride));
    return FIRST_PAGE;
  }
  if (capacity < PAGE_SIZE) {
    pages[0] = grown(pages[0] as Int32Array, capacity * 2 * stride);
    return capacity * 2;
  }
  pages.push(new Int32Array(PAGE_SIZE * stride));
  return capacity + PAGE_SIZE;
}

/** The page holding entry `index`: `first` (pages[0], read without the page table) or a later one. */
function pageOf(first: Int32Array, pages: Int32Array[], index: number): Int32Array {
  return index < PAGE_SIZE ? first : (pages[index >> PAGE_BITS] as Int32Array);
}

// A container record: ENTRY_STRIDE ints.
const E_FLAGS = 0;
const E_ITEM_LINE = 1;
const E_GROUP = 2;
const ENTRY_STRIDE = 3;

export class ContainerStack {
  length = 0;
  private readonly pages: Int32Array[] = [];
  private capacity = 0;
  /** pages[0] (most notes never need another), read without the page table. */
  private first: Int32Array = NO_PAGE;

  private page(index: number): Int32Array {
    return pageOf(this.first, this.pages, index);
  }

  isQuote(index: number): boolean {
    return ((this.page(index)[(index & PAGE_MASK) * ENTRY_STRIDE + E_FLAGS] as number) & QUOTE_FLAG) !== 0;
  }

  group(index: number): number {
    return this.page(index)[(index & PAGE_MASK) * ENTRY_STRIDE + E_GROUP] as number;
  }

  load(index: number, into: Container): void {
    const page = this.page(index);
    const at = (index & PAGE_MASK) * ENTRY_STRIDE;
    const flags = page[at + E_FLAGS] as number;
    into.quote = (flags & QUOTE_FLAG) !== 0;
    into.ordered = (flags & ORDERED_FLAG) !== 0;
    into.initialBlank = (flags & INITIAL_BLANK_FLAG) !== 0;
    into.marker = (flags >>> MARKER_SHIFT) & MARKER_MASK;
    into.size = flags >>> SIZE_SHIFT;
    into.itemLine = page[at + E_ITEM_LINE] as number;
    into.group = page[at + E_GROUP] as number;
    into.closeFlow = false;
  }

  store(index: number, from: Container): void {
    const page = this.page(index);
    const at = (index & PAGE_MASK) * ENTRY_STRIDE;
    page[at + E_FLAGS] =
      (from.quote ? QUOTE_FLAG : 0) |
      (from.ordered ? ORDERED_FLAG : 0) |
      (from.initialBlank ? INITIAL_BLANK_FLAG : 0) |
      (from.marker << MARKER_SHIFT) |
      (from.size << SIZE_SHIFT);
    page[at + E_ITEM_LINE] = from.itemLine;
    page[at + E_GROUP] = from.group;
  }

  push(from: Container): void {
    if (this.length === this.capacity) {
      this.capacity = addRoom(this.pages, this.capacity, ENTRY_STRIDE);
      this.first = this.pages[0] as Int32Array;
    }
    this.store(this.length++, from);
  }

  truncate(length: number): void {
    if (length < this.length) this.length = length;
  }
}

/** A stack of int32 values in pages (4 bytes each; no boxed numbers; no copy past the first page). */
export class IntStack {
  length = 0;
  private readonly pages: Int32Array[] = [];
  private capacity = 0;
  /** pages[0], read without the page table. */
  private first: Int32Array = NO_PAGE;

  /** The value at `index`; 0 where nothing was set (also below 0 and past the last page). */
  at(index: number): number {
    if (index < 0 || index >= this.capacity) return 0;
    return pageOf(this.first, this.pages, index)[index & PAGE_MASK] as number;
  }

  set(index: number, value: number): void {
    if (index >= this.capacity) {
      while (index >= this.capacity) this.capacity = addRoom(this.pages, this.capacity, 1);
      this.first = this.pages[0] as Int32Array;
    }
    pageOf(this.first, this.pages, index)[index & PAGE_MASK] = value;
  }

  push(value: number): void {
    this.set(this.length, value);
    this.length++;
  }

  top(): number {
    return this.at(this.length - 1);
  }

  pop(): void {
    this.length--;
  }
}
