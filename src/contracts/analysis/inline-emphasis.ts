/**
 * Emphasis matching of the inline pass, as micromark's attention resolver does it: closers left
 * to right, each with the nearest opener that fits (same marker, the rule of 3), openers-bottom
 * per (marker, closer can-open, closer length mod 3). Where micromark differs from CommonMark, it
 * is followed: the runs inside a new emphasis are matched again among themselves.
 *
 * Invariant: on the delimiter records of inline-edits.ts, the chars each run gives to emphasis
 * (D_LEFT, D_RIGHT) are those of micromark 4.0.3 on the same source.
 *
 * Linear bound: each run of matching reads a delimiter once as a closer and walks back over
 * openers no lower than its openers-bottom, and every delimiter it walks past is detached, so a
 * run costs O(its delimiters). A delimiter joins a nested run only inside a match that consumed
 * chars of a run between the pair; otherwise the detached delimiters are dropped after one read.
 * No recursion: runs wait on a frame stack.
 */
import { CAN_CLOSE, CAN_OPEN, D_INFO, D_LEFT, D_NEXT, D_PREV, D_RIGHT, NONE, STAR_BIT } from './inline-edits';

/** matchEmphasis frame layout. */
const F_CLOSER = 0;
const F_FLOOR = 1;
const F_BOTTOM = 2;
const FRAME = F_BOTTOM + 12;

/** Takes `d` out of its list (the list's ends are not tracked while emphasis is matched). */
function unlink(records: Int32Array, d: number): void {
  const prev = records[d + D_PREV] as number;
  const next = records[d + D_NEXT] as number;
  if (prev !== NONE) records[prev + D_NEXT] = next;
  if (next !== NONE) records[next + D_PREV] = prev;
}

/**
 * Detaches the delimiters strictly between `opener` and `closer` as a list of their own, and
 * returns its first one if a match has consumed chars of any of them (they may match anew), else NONE.
 */
function detachBetween(records: Int32Array, opener: number, closer: number): number {
  const first = records[opener + D_NEXT] as number;
  if (first === closer) return NONE;
  const last = records[closer + D_PREV] as number;
  records[opener + D_NEXT] = closer;
  records[closer + D_PREV] = opener;
  records[first + D_PREV] = NONE;
  records[last + D_NEXT] = NONE;
  for (let d = first; d !== NONE; d = records[d + D_NEXT] as number) {
    if ((records[d + D_LEFT] as number) !== 0 || (records[d + D_RIGHT] as number) !== 0) return first;
  }
  return NONE;
}

/** Chars of a delimiter run not yet matched. */
function remaining(records: Int32Array, d: number): number {
  return ((records[d + D_INFO] as number) >> 4) - (records[d + D_LEFT] as number) - (records[d + D_RIGHT] as number);
}

/** The frame stack of one pass's emphasis matching, kept between its calls. */
export class EmphasisRuns {
  /** Per run: its next closer, its floor and its openers-bottom. */
  private frames = new Int32Array(4 * FRAME);

  /**
   * micromark's attention resolver over the list from `first`, walking back no lower than `floor`:
   * closers left to right, each matched with the nearest opener that fits. When a pair matches,
   * the delimiters between them are detached, and matched again among themselves with their sizes
   * of that moment if one of them has lost chars to a match (micromark resolves the inside of each
   * new emphasis as a span of its own; CommonMark drops them). Without such a delimiter the
   * detached run is dropped unread: each closer in it already failed against the same openers at
   * the same sizes. What a run leaves is literal. Runs wait on a stack of frames (no recursion),
   * each holding its next closer and its openers-bottom.
   * Bound: a delimiter is read once per run it belongs to, and it joins a nested run only when a
   * match that consumed chars encloses it.
   */
  match(records: Int32Array, first: number, floor: number): boolean {
    let frames = this.frames;
    let matched = false;
    frames[F_CLOSER] = first;
    frames[F_FLOOR] = floor;
    for (let key = 0; key < 12; key++) frames[F_BOTTOM + key] = floor;
    let depth = 1;
    while (depth > 0) {
      const f = (depth - 1) * FRAME;
      const closer = frames[f + F_CLOSER] as number;
      if (closer === NONE) {
        depth--;
        continue;
      }
      const runFloor = frames[f + F_FLOOR] as number;
      const closerInfo = records[closer + D_INFO] as number;
      if ((closerInfo & CAN_CLOSE) === 0) {
        frames[f + F_CLOSER] = records[closer + D_NEXT] as number;
        continue;
      }
      const marker = closerInfo & STAR_BIT;
      const closerSize = remaining(records, closer);
      const closerOpens = (closerInfo & CAN_OPEN) !== 0;
      // openers-bottom[key]: openers whose id is below this cannot match closers of that key.
      const key = f + F_BOTTOM + (marker !== 0 ? 0 : 6) + (closerOpens ? 3 : 0) + (closerSize % 3);
      const limit = frames[key] as number;
      let opener = records[closer + D_PREV] as number;
      while (opener !== NONE) {
        if (opener <= runFloor || opener < limit) {
          opener = NONE;
          break;
        }
        const info = records[opener + D_INFO] as number;
        if (
          (info & CAN_OPEN) !== 0 &&
          (info & STAR_BIT) === marker &&
          !(((info & CAN_CLOSE) !== 0 || closerOpens) && closerSize % 3 !== 0 && (remaining(records, opener) + closerSize) % 3 === 0)
        ) {
          break;
        }
        opener = records[opener + D_PREV] as number;
      }
      if (opener === NONE) {
        frames[key] = closer;
        const next = records[closer + D_NEXT] as number;
        if (!closerOpens) unlink(records, closer);
        frames[f + F_CLOSER] = next;
        continue;
      }
      const openerSize = remaining(records, opener);
      const use = openerSize > 1 && closerSize > 1 ? 2 : 1;
      records[opener + D_RIGHT] = (records[opener + D_RIGHT] as number) + use;
      records[closer + D_LEFT] = (records[closer + D_LEFT] as number) + use;
      matched = true;
      const inside = detachBetween(records, opener, closer);
      if (openerSize === use) unlink(records, opener);
      else {
        // The opener's size changed: it may now suit closers it was ruled out for.
        const base = f + F_BOTTOM + (marker !== 0 ? 0 : 6);
        for (let k = base; k < base + 6; k++) {
          if ((frames[k] as number) > opener) frames[k] = opener;
        }
      }
      if (closerSize === use) {
        frames[f + F_CLOSER] = records[closer + D_NEXT] as number;
        unlink(records, closer);
      }
      if (inside !== NONE) {
        if ((depth + 1) * FRAME > frames.length) {
          const wider = new Int32Array(frames.length * 2);
          wider.set(frames);
          frames = this.frames = wider;
        }
        const g = depth * FRAME;
        frames[g + F_CLOSER] = inside;
        frames[g + F_FLOOR] = NONE;
        for (let k = g + F_BOTTOM; k < g + FRAME; k++) frames[k] = NONE;
        depth++;
      }
    }
    return matched;
  }
}
