// The e2e Workers' output filter (test/support/node/local-worker.ts) drops only workerd's report of a
// client that hung up mid-answer; any other error line, workerd's included, still prints.
import { describe, expect, it } from 'vitest';
import { CLIENT_HUNG_UP } from '../support/node/local-worker';

const HUNG_UP =
  '✘ [ERROR] kj::getCaughtExceptionAsKj() = kj/async-io-unix.c++:186: disconnected: ::write(fd, buffer.begin(), buffer.size()): Broken pipe';

describe('the client hang-up filter', () => {
  it('matches the line workerd prints when a client closes before the answer is written', () => {
    expect(CLIENT_HUNG_UP.test(HUNG_UP)).toBe(true);
  });

  it('matches nothing else that looks like it', () => {
    for (const line of [
      '✘ [ERROR] kj::getCaughtExceptionAsKj() = kj/async-io-unix.c++:186: disconnected: ::read(fd, buffer, 4096): Connection reset by peer',
      '✘ [ERROR] Uncaught (in promise) Error: Network connection lost.',
      '✘ [ERROR] Build failed with 1 error',
      '✘ [ERROR] kj/async-io-unix.c++:186: failed: ::write(fd, buffer.begin(), buffer.size()): Broken pipe',
    ]) {
      expect(CLIENT_HUNG_UP.test(line), line).toBe(false);
    }
  });
});
