/**
 * The MCP floor of the bench (read-cost.ts, cold-start.ts): the least the official
 * MCP SDK v2 does for one tools/call, in each era the way src/http/mcp-server.ts serves it: the 2025
 * eras through the SDK's stateless Streamable HTTP transport with JSON answers, 2026-07-28 through
 * the SDK's createMcpHandler (made once per isolate, as the SDK's examples make it), each handed the
 * message already parsed (the SDK's own body read costs more). Its one tool answers a constant
 * one-field JSON; GET /json answers the same JSON without the SDK. What a tools/call costs over that
 * GET is the SDK's own cost of one exchange, which every MCP call carries. No token, no read, no log
 * line. Built with the Worker's own configuration (the SDK runtime alias of wrangler.toml included),
 * never deployed.
 */
import { createMcpHandler, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

const ANSWER = { chars: 1 };

function buildServer(): Server {
  const server = new Server({ name: 'bench-sdk-floor', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: JSON.stringify(ANSWER) }], structuredContent: ANSWER }));
  return server;
}

const modern = createMcpHandler(buildServer, { legacy: 'reject', keepAliveMs: 0 });

export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/json') return Response.json(ANSWER);
    if (pathname !== '/mcp' || request.method !== 'POST') return new Response(null, { status: 404 });
    const parsedBody: unknown = await request.json();
    if (request.headers.get('mcp-protocol-version') === '2026-07-28') return modern.fetch(request, { parsedBody });
    const server = buildServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  },
};
