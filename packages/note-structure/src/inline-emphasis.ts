/**
 * Emphasis matching of the inline pass, as micromark's attention resolver does it: closers left
 * to right, each with the nearest opener that fits (same marker, the rule of 3), openers-bottom
 * per (marker, closer can-open, closer length mod 3). Where micromark differs from CommonMark, it
 * is followed: the runs inside a new emphasis are matched again among themselves.
 *
 * Invariant: on the delimiter records of inline-delimiters.ts, the chars each run gives to emphasis
 * (usedLeft, usedRight) are those of micromark 4.0.3 on the same source.
 *
 * Linear bound: each run of matching reads a delimiter once as a closer and walks back over
 * openers no lower than its openers-bottom, and every delimiter it walks past is detached, so a
 * run costs O(its delimiters). A delimiter joins a nested run only inside a match that consumed
 * chars of a run between the pair; otherwise the detached delimiters are dropped after one read.
 * No recursion: runs wait on a frame stack.
 */
import * as runRecords from './inline-delimiters';
import * as growth from './growth';

// Imported values are bound once, at load (see chars.ts).
const {
  NONE, detachBetween, runCanClose, runCanOpen, runInfo, runIsStar, runNext, runPrev, runRemaining, sameMarker, unlinkRun,
  useChars,
} = runRecords;
const { widened } = growth;

/**
 * The openers-bottoms of a run, one per key: the closer's marker (`*` keys first), whether the
 * closer can also open, and its size mod 3 (bottomKey).
 */
const KEYS_PER_MARKER = 6;
const KEYS_PER_CAN_OPEN = 3;
const BOTTOM_KEYS = 2 * KEYS_PER_MARKER;

/** The openers-bottom key of a closer. */
function bottomKey(star: boolean, closerOpens: boolean, closerSize: number): number {
  return (star ? 0 : KEYS_PER_MARKER) + (closerOpens ? KEYS_PER_CAN_OPEN : 0) + (closerSize % 3);
}

/** A frame of the match stack, FRAME ints: the run's next closer, its floor, then its BOTTOM_KEYS openers-bottoms. */
const F_CLOSER = 0;
const F_FLOOR = 1;
const F_BOTTOM = 2;
const FRAME = F_BOTTOM + BOTTOM_KEYS;

/** The frame stack of one pass's emphasis matching, kept between its calls. */
export class EmphasisRuns {
  /** Per run: its next closer, its floor and its openers-bottom. One frame to start (56 bytes: on the heap, see BacktickRuns). */
  private frames: Int32Array<ArrayBuffer> = new Int32Array(FRAME);

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
    for (let key = 0; key < BOTTOM_KEYS; key++) frames[F_BOTTOM + key] = floor;
    let depth = 1;
    while (depth > 0) {
      const f = (depth - 1) * FRAME;
      const closer = frames[f + F_CLOSER] as number;
      if (closer === NONE) {
        depth--;
        continue;
      }
      const runFloor = frames[f + F_FLOOR] as number;
      const closerInfo = runInfo(records, closer);
      if (!runCanClose(closerInfo)) {
        frames[f + F_CLOSER] = runNext(records, closer);
        continue;
      }
      const star = runIsStar(closerInfo);
      const closerSize = runRemaining(records, closer);
      const closerOpens = runCanOpen(closerInfo);
      // openers-bottom[key]: openers whose id is below this cannot match closers of that key.
      const key = f + F_BOTTOM + bottomKey(star, closerOpens, closerSize);
      const limit = frames[key] as number;
      let opener = runPrev(records, closer);
      while (opener !== NONE) {
        if (opener <= runFloor || opener < limit) {
          opener = NONE;
          break;
        }
        const info = runInfo(records, opener);
        if (
          runCanOpen(info) &&
          sameMarker(info, closerInfo) &&
          !((runCanClose(info) || closerOpens) && closerSize % 3 !== 0 && (runRemaining(records, opener) + closerSize) % 3 === 0)
        ) {
          break;
        }
        opener = runPrev(records, opener);
      }
      if (opener === NONE) {
        frames[key] = closer;
        const next = runNext(records, closer);
        if (!closerOpens) unlinkRun(records, closer);
        frames[f + F_CLOSER] = next;
        continue;
      }
      const openerSize = runRemaining(records, opener);
      const use = openerSize > 1 && closerSize > 1 ? 2 : 1;
      useChars(records, opener, closer, use);
      matched = true;
      const inside = detachBetween(records, opener, closer);
      if (openerSize === use) unlinkRun(records, opener);
      else {
        // The opener's size changed: it may now suit closers it was ruled out for (every key of its marker).
        const base = f + F_BOTTOM + bottomKey(star, false, 0);
        for (let k = base; k < base + KEYS_PER_MARKER; k++) {
          if ((frames[k] as number) > opener) frames[k] = opener;
        }
      }
      if (closerSize === use) {
        frames[f + F_CLOSER] = runNext(records, closer);
        unlinkRun(records, closer);
      }
      if (inside !== NONE) {
        if ((depth + 1) * FRAME > frames.length) frames = this.frames = widened(frames, (depth + 1) * FRAME);
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
