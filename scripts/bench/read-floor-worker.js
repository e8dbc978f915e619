/**
 * The read floor of the bench (read-cost.ts, note-size.ts, cold-start.ts): the least a Worker can
 * do for a REST read. It makes the canister GET ours makes (src/vault/canister.ts: the same URL shape
 * and headers, for the bench's session user on the default vault), parses the JSON answer, writes
 * one log line and answers a one-field JSON. No token check, no path rule, no analysis: what is left
 * is the platform's own cost of a read. Its GET /health answers at once and logs nothing: the cost of
 * an HTTP exchange alone, which the bench subtracts from every read. Its GET /compute does a fixed
 * piece of work like a read's (parse a 1 MB JSON document, then read every char of its text): with
 * the no-op, the machine's speed in a run. Served to Miniflare as it is, never bundled, never deployed.
 */
/** lab.ts BENCH_USER, whose token the bench sends to our Worker. */
const BENCH_USER = 'bench-user';

/** The fixed work of GET /compute: a 1 MB JSON document, built on the first call. */
let document = '';

function compute() {
  document ||= JSON.stringify({ body: 'Some plain words, [a link](x) and *emphasis*.\n\n'.repeat(20_000) });
  const { body } = JSON.parse(document);
  let sum = 0;
  for (let index = 0; index < body.length; index++) sum = (sum + body.charCodeAt(index)) | 0;
  return sum;
}

export default {
  /**
   * @param {Request} request
   * @param {{ CANISTER_URL: string, CANISTER_AUTH_SECRET: string }} env
   */
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/health') return new Response('ok');
    if (url.pathname === '/compute') return new Response(String(compute()));
    const path = url.searchParams.get('path') ?? '';
    const answer = await fetch(`${env.CANISTER_URL}/api/v1/notes/${encodeURIComponent(path)}`, {
      headers: {
        Accept: 'application/json',
        'X-Vault-Id': 'default',
        'X-User-Id': BENCH_USER,
        'X-Actor-Id': BENCH_USER,
        'X-Gateway-Auth': env.CANISTER_AUTH_SECRET,
      },
    });
    const note = await answer.json();
    console.log(JSON.stringify({ op: 'floor', upstream: answer.status }));
    return Response.json({ chars: typeof note.body === 'string' ? note.body.length : null }, { status: answer.ok ? 200 : 404 });
  },
};
