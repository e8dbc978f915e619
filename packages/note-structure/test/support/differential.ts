/**
 * One differential check: the linear analysis against the micromark oracle,
 * on the NoteStructure each answers for one body. A refusal counts as a
 * result (the error's name and fixed message), so a refusal on one side and
 * an answer on the other is a mismatch.
 */
import { analyzeNote } from '../../src';
import { analyzeWithMdast } from '../../dev/oracle';

function outcome(analyze: (body: string) => unknown, body: string): string {
  try {
    return JSON.stringify(analyze(body));
  } catch (error) {
    return `error: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`;
  }
}

/** null when both sides agree; otherwise a short description of the first difference (no body text). */
export function differential(body: string): string | null {
  const linear = outcome(analyzeNote, body);
  const oracle = outcome(analyzeWithMdast, body);
  return linear === oracle ? null : `NoteStructure differs:\n  linear: ${linear.slice(0, 400)}\n  oracle: ${oracle.slice(0, 400)}`;
}
