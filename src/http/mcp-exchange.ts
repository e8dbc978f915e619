/**
 * The types an MCP exchange is described by, between the adapter (mcp.ts: what the gate admitted
 * or refused) and the SDK's server for one message (mcp-server.ts).
 */
import type { ProtectedResource } from '../auth/resource';
import type { Config } from '../config';
import type { ContractSpec } from '../contracts/registry';
import type { ReadError } from '../errors';
import type { AdmittedRequest } from '../gate';
import type { LogFacts } from '../log';
import type { NoteAsk } from '../read-note';
import type { PayloadStandIns } from './mcp-payload';

/** One JSON-RPC message, read, parsed and checked: what an MCP request asks. */
export interface McpMessage {
  message: unknown;
  /** The id an answer carries (answerIdOf). */
  id: number | string | null;
  /** The revision era the SDK serves it in (mcp-era.ts decideEra). */
  era: 'legacy' | 'modern';
  /** For tools/call: what the call does (toolCallPlan); null for every other message. */
  call: ToolCallPlan | null;
  /** The method, the revision and the client, for the log line. */
  facts: LogFacts;
}

/**
 * What a tools/call does, decided from the message alone: read one contract of one note, or answer
 * without a read: the unknown-tool error, or a tool error (invalid arguments or path, a refusal).
 */
export type ToolCallPlan =
  | { kind: 'read'; note: NoteAsk }
  | { kind: 'unknown_tool' }
  | { kind: 'tool_error'; error: ReadError };

/** What one exchange (one POST, one JSON-RPC message) needs to know about itself. */
export interface Exchange {
  /** Where it is answered: the configuration, the protected resource, the contracts the role may read. */
  setting: { config: Config; resource: ProtectedResource; contracts: readonly ContractSpec[] };
  /** What the gate admitted (the budget is already spent); null for a tools/call the gate refused, answered by its plan. */
  admitted: AdmittedRequest<McpMessage> | null;
  /** For tools/call, what it does (mcp.ts toolCallPlan, with the role's contracts applied); null otherwise. */
  plan: ToolCallPlan | null;
  request: Request;
  /** The message as JSON.parse produced it: own keys the SDK's schema parsing may drop are still here. */
  rawMessage: unknown;
  /** Set when tools/call answered with the unknown-tool error. */
  unknownTool?: boolean;
  /** Set when any JSON-RPC error left through the server. */
  rpcError: boolean;
  /** A tools/call's log facts: the tool (op), its outcome and, for a read, the read's facts. */
  toolFacts?: LogFacts;
  /** The one serialization of a successful tool payload, embedded as-is in the answer (mcp-payload.ts). */
  payloadText?: string;
  /** The stand-ins the SDK serialized in place of that payload. */
  standIns?: PayloadStandIns;
}
