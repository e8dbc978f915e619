/**
 * frontend-fetch.ts from a terminal, as a page calls it: reads one note's sections and prints them
 * nested, two spaces per level.
 *
 *   npm start                                        # in another terminal
 *   npm run example:frontend -- [base-url] [note-path]
 *
 * base-url: the argument, else KNOWTATION_URL, else http://127.0.0.1:8787 (`npm start`). The token:
 * KNOWTATION_TOKEN, else a 10-minute viewer token signed with the published dev secret, which only
 * `npm start`'s Worker accepts. A page never mints one: it sends the Hub session's token.
 */
import { mintViewerToken } from '../scripts/token.mjs';
import { KnowtationApiError, fetchSectionSource, sectionLines } from './frontend-fetch';

const baseUrl = process.argv[2] ?? process.env.KNOWTATION_URL ?? 'http://127.0.0.1:8787';
const notePath = process.argv[3] ?? 'projects/Aurora/roadmap.md';
const token = process.env.KNOWTATION_TOKEN || (await mintViewerToken('demo', 600));

/** Heading text is the note author's: control characters are replaced so it cannot drive the terminal. */
const printable = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\uFFFD');

try {
  const source = await fetchSectionSource(baseUrl, token, notePath);
  process.stdout.write(`${[source.title ?? source.path, ...sectionLines(source)].map(printable).join('\n')}\n`);
} catch (error) {
  if (!(error instanceof KnowtationApiError)) throw error;
  // The status and the documented code only: never the token, and nothing of the answer's body.
  console.error(`${error.message}${error.retryAfterSeconds === undefined ? '' : `; retry after ${error.retryAfterSeconds} s`}`);
  process.exitCode = 1;
}
