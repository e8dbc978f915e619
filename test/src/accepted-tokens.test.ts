// The accepted-token memo's own bounds (src/auth/accepted-tokens.ts): at most MAX_ACCEPTED_TOKENS
// entries per configuration, the least recently used dropped first; an entry answers only inside its window and
// for at most ACCEPTED_TOKEN_TTL_SECONDS. What it answers is checked through the Worker in
// test/worker/accepted-tokens.test.ts.
import { describe, expect, it } from 'vitest';
import { ACCEPTED_TOKEN_TTL_SECONDS, MAX_ACCEPTED_TOKENS, acceptedCount, acceptedPrincipal, rememberAccepted } from '../../src/auth/accepted-tokens';
import type { Config } from '../../src/config';

const NOW = 1_800_000_000;
const config = () => ({}) as Config;
const forever = { from: -Infinity, until: Infinity };

describe('accepted-token memo', () => {
  it(`keeps at most ${MAX_ACCEPTED_TOKENS} tokens per configuration, dropping the least recently used first`, () => {
    const kept = config();
    for (let index = 0; index <= MAX_ACCEPTED_TOKENS; index++) rememberAccepted(kept, 'r', `t${index}`, { index }, forever, NOW);
    expect(acceptedCount(kept)).toBe(MAX_ACCEPTED_TOKENS);
    expect(acceptedPrincipal(kept, 'r', 't0', NOW)).toBeNull();
    expect(acceptedPrincipal(kept, 'r', 't1', NOW)).toEqual({ index: 1 });
    expect(acceptedPrincipal(kept, 'r', `t${MAX_ACCEPTED_TOKENS}`, NOW)).toEqual({ index: MAX_ACCEPTED_TOKENS });
    // A hit keeps a token as the most recently used: the next one dropped is t2, not t1.
    rememberAccepted(kept, 'r', 'extra', { index: -1 }, forever, NOW);
    expect(acceptedPrincipal(kept, 'r', 't1', NOW)).toEqual({ index: 1 });
    expect(acceptedPrincipal(kept, 'r', 't2', NOW)).toBeNull();
    // Remembering a kept token again does not grow the memo.
    rememberAccepted(kept, 'r', 't1', { index: 1 }, forever, NOW);
    expect(acceptedCount(kept)).toBe(MAX_ACCEPTED_TOKENS);
  });

  it(`answers inside the window and for at most ${ACCEPTED_TOKEN_TTL_SECONDS} s, and forgets an entry past either`, () => {
    const kept = config();
    rememberAccepted(kept, 'r', 'long', 'long', { from: NOW - 10, until: NOW + 3600 }, NOW);
    rememberAccepted(kept, 'r', 'short', 'short', { from: NOW - 10, until: NOW + 5 }, NOW);
    expect(acceptedPrincipal(kept, 'r', 'long', NOW - 10)).toBe('long');
    expect(acceptedPrincipal(kept, 'r', 'long', NOW - 11)).toBeNull();
    expect(acceptedCount(kept)).toBe(1);
    rememberAccepted(kept, 'r', 'long', 'long', { from: NOW - 10, until: NOW + 3600 }, NOW);
    expect(acceptedPrincipal(kept, 'r', 'long', NOW + ACCEPTED_TOKEN_TTL_SECONDS - 1)).toBe('long');
    expect(acceptedPrincipal(kept, 'r', 'long', NOW + ACCEPTED_TOKEN_TTL_SECONDS)).toBeNull();
    expect(acceptedPrincipal(kept, 'r', 'short', NOW + 4)).toBe('short');
    expect(acceptedPrincipal(kept, 'r', 'short', NOW + 5)).toBeNull();
    expect(acceptedCount(kept)).toBe(0);
  });

  it('keys by resource and credential, per configuration', () => {
    const one = config();
    const other = config();
    rememberAccepted(one, 'https://edge.example/mcp', 't', 'p', forever, NOW);
    expect(acceptedPrincipal(one, 'https://edge.example/mcp', 't', NOW)).toBe('p');
    expect(acceptedPrincipal(one, 'https://edge.example', 't', NOW)).toBeNull();
    expect(acceptedPrincipal(one, 'https://edge.example/mcp', 't ', NOW)).toBeNull();
    expect(acceptedPrincipal(other, 'https://edge.example/mcp', 't', NOW)).toBeNull();
  });
});
