// The session secret the worker harness signs tokens with, shared with the Node global setup so
// the Hub stand-in verifies them as the Hub verifies its own (test/support/node/global-setup.ts).
export const TEST_SESSION_SECRET = 'test-session-secret-for-knowtation-edge-0001';
