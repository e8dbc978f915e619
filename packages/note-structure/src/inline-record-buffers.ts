/**
 * The record buffers of the inline pass (inline.ts), kept from one pass to the next: a pass takes
 * them whole and gives them back zeroed over what it wrote, at most RECORD_BUDGET ints in all (a
 * pass that throws gives nothing back, and the next one starts from fresh buffers). The record
 * layouts are the stream modules' (inline-items.ts, inline-delimiters.ts, inline-brackets.ts);
 * this module knows only the buffers. scratch.ts reads what is kept, for its leftovers check.
 *
 * Invariant: between passes the kept buffers hold only zeros.
 * Linear bound: giving back costs O(ints the pass wrote), plus one fresh small buffer per stream
 * dropped over the budget.
 */

/** The record buffers of one pass, by stream. */
export interface RecordBuffers {
  items: Int32Array<ArrayBuffer>;
  delimiters: Int32Array<ArrayBuffer>;
  brackets: Int32Array<ArrayBuffer>;
  /** Open brackets (ids), never more entries than brackets were recorded. */
  stack: Int32Array<ArrayBuffer>;
}

/**
 * Record buffers kept from one pass to the next, so a pass writes into memory that is already
 * mapped (on emphasis-dense notes, fresh pages cost about as much as the pass's own work).
 * Between passes they hold only zeros and at most RECORD_BUDGET ints (8 MiB) in all.
 */
const RECORD_BUDGET = 1 << 21;
let keptRecords: RecordBuffers | null = null;

/** The kept buffers, or fresh small ones; the caller owns them until it gives them back. */
export function takeRecordBuffers(): RecordBuffers {
  const taken = keptRecords;
  keptRecords = null;
  return taken ?? freshRecordBuffers({});
}

/** `kept`, with a fresh small buffer for every stream it lacks. */
function freshRecordBuffers(kept: Partial<RecordBuffers>): RecordBuffers {
  return {
    items: kept.items ?? new Int32Array(64),
    delimiters: kept.delimiters ?? new Int32Array(96),
    brackets: kept.brackets ?? new Int32Array(32),
    stack: kept.stack ?? new Int32Array(16),
  };
}

/**
 * Gives a pass's buffers back, with the ints it wrote at the start of each: each is zeroed over
 * that prefix and kept while the kept total stays within the budget. Within it (every pass but
 * one that grew a stream past it) the same buffers are kept as they are, with no allocation.
 * Over it, a buffer over the budget left is dropped for a fresh small one: the stream this pass
 * wrote most (with the stack, when that is the brackets) claims the budget first, so a large
 * buffer that an earlier, different source left in another stream cannot crowd out the one a
 * later pass on this kind of source needs again; the rest claim it in a fixed order.
 */
export function giveBackRecordBuffers(buffers: RecordBuffers, items: number, delimiters: number, brackets: number, stack: number): void {
  if (buffers.items.length + buffers.delimiters.length + buffers.brackets.length + buffers.stack.length <= RECORD_BUDGET) {
    zeroPrefix(buffers.items, items);
    zeroPrefix(buffers.delimiters, delimiters);
    zeroPrefix(buffers.brackets, brackets);
    zeroPrefix(buffers.stack, stack);
    keptRecords = buffers;
    return;
  }
  const used: Record<keyof RecordBuffers, number> = { items, delimiters, brackets, stack };
  const claims: (keyof RecordBuffers)[] =
    items >= delimiters && items >= brackets
      ? ['items', 'delimiters', 'brackets', 'stack']
      : brackets >= delimiters
        ? ['brackets', 'stack', 'delimiters', 'items']
        : ['delimiters', 'items', 'brackets', 'stack'];
  const kept: Partial<RecordBuffers> = {};
  let room = RECORD_BUDGET;
  for (const name of claims) {
    const buffer = buffers[name];
    if (buffer.length > room) continue;
    room -= buffer.length;
    zeroPrefix(buffer, used[name]);
    kept[name] = buffer;
  }
  keptRecords = freshRecordBuffers(kept);
}

/** Below this many ints a loop zeros a prefix faster than a call to fill (most passes write a few records). */
const FILL_FROM = 64;

/** Zeros `buffer[0, used)`. */
function zeroPrefix(buffer: Int32Array, used: number): void {
  if (used >= FILL_FROM) buffer.fill(0, 0, used);
  else for (let at = 0; at < used; at++) buffer[at] = 0;
}

/** The buffers kept for the next pass (null while a pass holds them, or after one threw); read by scratch.ts. */
export function keptRecordBuffers(): Readonly<RecordBuffers> | null {
  return keptRecords;
}
