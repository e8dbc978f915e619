/**
 * An MCP client with a bearer token, with the MCP SDK v2 client (@modelcontextprotocol/client):
 * calls get_note_outline and prints the outline.
 *
 *   npm start                                        # in another terminal; it prints a token
 *   KNOWTATION_TOKEN=$(npm run -s token) npx tsx examples/mcp-bearer-client.ts [base-url] [note-path]
 *
 * base-url: the argument, else KNOWTATION_URL, else http://127.0.0.1:8787 (`npm start`).
 * Deployed, the token is a Hub session token and base-url the Worker's https origin.
 *
 * What a real app keeps: the token only, where it keeps the Hub session (a server's session store,
 * a script's secret store or environment; never a file in a repository). It has no refresh token:
 * on a 401 the app gets a new token from the Hub. The token goes in the Authorization header only,
 * never in a URL (URLs are logged), and is never logged or printed, not even on an error.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { components } from './generated/openapi';

type NoteOutline = components['schemas']['NoteOutline'];

const token = process.env.KNOWTATION_TOKEN;
if (!token) {
  console.error('Set KNOWTATION_TOKEN, e.g. KNOWTATION_TOKEN=$(npm run -s token)');
  process.exit(2);
}
const baseUrl = process.argv[2] ?? process.env.KNOWTATION_URL ?? 'http://127.0.0.1:8787';
const notePath = process.argv[3] ?? 'projects/Aurora/roadmap.md';

/** Heading text is the note author's: control characters are replaced so it cannot drive the terminal. */
const printable = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\uFFFD');

const client = new Client({ name: 'knowtation-edge-example-bearer', version: '1.0.0' });
// The token is sent as `Authorization: Bearer` on every request, never in the URL (URLs are logged).
const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { authProvider: { token: async () => token } });
try {
  await client.connect(transport);
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  // 401: expired, or signed with another key than the Worker's SESSION_SECRET. Never print the token.
  console.error('The Worker refused the token (401): mint a fresh one with npm run -s token.');
  process.exit(1);
}

const result = await client.callTool({ name: 'get_note_outline', arguments: { path: notePath } });
if (result.isError) {
  // A tool error's text is a fixed {"error","code"} message, e.g. "Upstream 404" for a missing note.
  console.error(`get_note_outline failed: ${JSON.stringify(result.content)}`);
  process.exitCode = 1;
} else {
  const outline = result.structuredContent as NoteOutline;
  console.log(printable(outline.title ?? outline.path));
  for (const heading of outline.headings) console.log(`${'  '.repeat(heading.level)}${printable(heading.text)}  ${heading.id}`);
}
await client.close();
