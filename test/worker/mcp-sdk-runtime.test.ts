// The MCP SDK's runtime module is this Worker's own (src/http/mcp-sdk-runtime.ts), in the tests as in the
// deployed bundle (wrangler.toml [alias]; test/src/bundle-size.test.ts checks the bundle's side).
import { Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';

describe("the MCP SDK's runtime module", () => {
  it('gives the SDK a JSON Schema validator that refuses every schema, since this server never validates one', () => {
    const server = new Server({ name: 'probe', version: '0' }, { capabilities: { tools: {} } });
    const validator = (server as unknown as { _jsonSchemaValidator: { getValidator(schema: object): (input: unknown) => unknown } })._jsonSchemaValidator;
    expect(validator.getValidator({ type: 'object' })({})).toEqual({
      valid: false,
      data: undefined,
      errorMessage: 'JSON Schema validation is not available on this server',
    });
  });
});
