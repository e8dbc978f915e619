// The two output filters of the test run, each dropping only what a fault the tests inject on
// purpose makes the runtime print: the e2e Workers' client hang-up line (test/support/node/local-worker.ts)
// and the worker project's workerd fault reports (test/support/node/workerd-fault-logs.ts). Anything
// else, workerd's and wrangler's included, still prints.
import { describe, expect, it } from 'vitest';
import { CLIENT_HUNG_UP, HangUpFilter } from '../support/node/local-worker';
import { WorkerdFaultFilter } from '../support/node/workerd-fault-logs';

const HUNG_UP = (why: string): string =>
  `✘ [ERROR] kj::getCaughtExceptionAsKj() = kj/async-io-unix.c++:186: disconnected: ::write(fd, buffer.begin(), buffer.size()): ${why}`;

describe('the client hang-up filter (e2e)', () => {
  it('matches the line workerd prints when a client closes before the answer is written', () => {
    expect(CLIENT_HUNG_UP.test(HUNG_UP('Broken pipe'))).toBe(true);
    expect(CLIENT_HUNG_UP.test(HUNG_UP('Connection reset by peer'))).toBe(true);
  });

  it('matches nothing else that looks like it', () => {
    for (const line of [
      '✘ [ERROR] kj::getCaughtExceptionAsKj() = kj/async-io-unix.c++:186: disconnected: ::read(fd, buffer, 4096): Connection reset by peer',
      '✘ [ERROR] Uncaught (in promise) Error: Network connection lost.',
      '✘ [ERROR] Build failed with 1 error',
      '✘ [ERROR] kj/async-io-unix.c++:186: failed: ::write(fd, buffer.begin(), buffer.size()): Broken pipe',
      HUNG_UP('Connection timed out'),
    ]) {
      expect(CLIENT_HUNG_UP.test(line), line).toBe(false);
    }
  });
});

describe("wrangler's debug-log note (e2e)", () => {
  const NOTE = '\u{1FAB5}  Logs were written to "/root/.config/.wrangler/logs/wrangler-2026-12-07_05-53-53_271.log"';

  it('is dropped when every error before it was a dropped hang-up', () => {
    const filter = new HangUpFilter();
    expect(filter.keepError([HUNG_UP('Broken pipe')])).toBe(false);
    expect(filter.keepWarning([NOTE])).toBe(false);
  });

  it('prints after any other error, and every other warning prints', () => {
    const filter = new HangUpFilter();
    expect(filter.keepWarning(['▲ [WARNING] Processing wrangler.toml configuration'])).toBe(true);
    expect(filter.keepError(['✘ [ERROR] Build failed with 1 error'])).toBe(true);
    expect(filter.keepError([HUNG_UP('Broken pipe')])).toBe(false);
    expect(filter.keepWarning([NOTE])).toBe(true);
  });
});

// workerd's messages as the pool writes them: the exception, then its stack of frame addresses.
const STACK = '\nstack: /x/bin/workerd@52008e2 /x/bin/workerd@5200ac5 /x/bin/workerd@51bdf58\n';
const REFUSED = `exception = kj/async-io-unix.c++:1538: disconnected: connect(): Connection refused${STACK}`;
const RESET = `exception = kj/async-io-unix.c++:568: disconnected: ::read(fd, buffer, maxBytes): Connection reset by peer${STACK}`;
const CUT_SHORT = `exception = kj/compat/http.c++:2064: disconnected: premature EOF in HTTP entity body; did not reach Content-Length; expectedLength = 169; alreadyRead = 84${STACK}`;
const LOST_IN_PROMISE = 'uncaught exception; source = Uncaught (in promise); stack = Error: Network connection lost.\n';
const LOST_JSG = `uncaught exception; exception = workerd/jsg/_virtual_includes/iterator/workerd/jsg/value.h:1480: disconnected: jsg.Error: Network connection lost.${STACK}`;

/** The messages `filter` prints of `messages`, in order. */
const printed = (messages: string[], filter = new WorkerdFaultFilter()): string[] => messages.filter((message) => filter.keep(message));

describe('the workerd fault filter (worker project)', () => {
  it('drops a refused or reset connection with the two lost-connection reports that follow it, and a body cut short', () => {
    expect(printed([REFUSED, LOST_IN_PROMISE, LOST_JSG, RESET, LOST_IN_PROMISE, LOST_JSG, CUT_SHORT])).toEqual([]);
  });

  it('drops the reports of faults whose messages interleave (files run side by side)', () => {
    expect(printed([REFUSED, RESET, LOST_IN_PROMISE, LOST_IN_PROMISE, LOST_JSG, LOST_JSG])).toEqual([]);
  });

  it('prints a lost connection that no dropped fault announced, and any lost-connection report past the ones owed', () => {
    expect(printed([LOST_IN_PROMISE, LOST_JSG])).toEqual([LOST_IN_PROMISE, LOST_JSG]);
    expect(printed([CUT_SHORT, LOST_IN_PROMISE])).toEqual([LOST_IN_PROMISE]);
    expect(printed([REFUSED, LOST_IN_PROMISE, LOST_JSG, LOST_IN_PROMISE])).toEqual([LOST_IN_PROMISE]);
  });

  it('prints every other workerd message, including ones that look like a dropped fault', () => {
    const others = [
      // A write that fails, a reset on another call, a refused connection with more after it.
      `exception = kj/async-io-unix.c++:186: disconnected: ::write(fd, buffer.begin(), buffer.size()): Broken pipe${STACK}`,
      `exception = kj/async-io-unix.c++:568: disconnected: ::recv(fd, buffer, maxBytes): Connection reset by peer${STACK}`,
      `exception = kj/async-io-unix.c++:1538: disconnected: connect(): Connection refused; more${STACK}`,
      'exception = kj/async-io-unix.c++:1538: disconnected: connect(): Connection refused\nstack: frames\nand a third line\n',
      // An uncaught error of the Worker's own, and workerd's other uncaught reports.
      'uncaught exception; source = Uncaught (in promise); stack = TypeError: x is not a function\n',
      `uncaught exception; exception = workerd/jsg/_virtual_includes/iterator/workerd/jsg/value.h:1480: disconnected: jsg.Error: Network connection lost. Again${STACK}`,
      'A header value for "Mcp-Name" contains non-ASCII characters\n',
      'GET /health 200 OK (1ms)\n',
    ];
    expect(printed(others)).toEqual(others);
  });
});
