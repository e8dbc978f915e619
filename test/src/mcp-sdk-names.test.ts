// The era gate spells the SDK's revision list and `_meta` key names itself, so that it can run
// without loading the SDK; they must stay exactly the SDK's.
import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as era from '../../src/http/mcp-era';

describe('mcp-era.ts names what the pinned SDK names', () => {
  it('the 2025-era revisions are the SDK supported list, in its order', () => {
    expect(era.LEGACY_REVISIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
  });

  it('the _meta keys are the SDK constants', () => {
    expect(era.PROTOCOL_VERSION_META_KEY).toBe(PROTOCOL_VERSION_META_KEY);
    expect(era.CLIENT_INFO_META_KEY).toBe(CLIENT_INFO_META_KEY);
  });
});
