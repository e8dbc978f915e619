/**
 * The MCP SDK's runtime module for this Worker: wrangler.toml (and the worker
 * test project) alias `@modelcontextprotocol/server/_shims` to this file.
 * Invariant: the SDK never validates a JSON Schema here (this server uses the
 * SDK's low-level Server, declares its tools' schemas as JSON Schema and sends
 * no elicitation), so the validator the SDK constructs refuses every schema
 * instead of shipping the SDK's own (which carries @cfworker/json-schema:
 * about 6 KiB of the gzip bundle);
 * and nothing runs at load: the SDK's own workerd module calls preloadSchemas(),
 * which builds both eras' wire schemas; here each era's are built when it is
 * first served (src/http/mcp.ts imports the SDK on the first MCP message).
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';

export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(_schema: JsonSchemaType): JsonSchemaValidator<T> {
    return () => ({ valid: false, data: undefined, errorMessage: 'JSON Schema validation is not available on this server' });
  }
}

function notSupported(): never {
  throw new Error('stdio is not available in a Worker');
}

/** The SDK's stdio transport reads these; a Worker has no stdio. */
export const process = {
  get stdin(): never {
    return notSupported();
  },
  get stdout(): never {
    return notSupported();
  },
};
