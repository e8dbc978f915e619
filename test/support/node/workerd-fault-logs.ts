// workerd's own reports of the network faults the worker tests inject on purpose. The pool of
// @cloudflare/vitest-pool-workers runs workerd verbose and writes each of its info-level logs to
// stdout, with no hook to change that, so a passing run would print them. Only these are dropped:
// - an upstream that refuses the connection (the JWK set or the canister on a closed port);
// - the demo canister's `reset` fault (the connection reset before any answer);
// - its `reset-mid-body` fault (the answer cut short of its Content-Length);
// - the two "Network connection lost" reports workerd adds after a refused or reset connection
//   (even when the fetch's rejection is caught), dropped only as the sequel of such a fault.
// Every other workerd line, a lost connection without its fault included, still prints.

/** One workerd log message: its first line, then `stack:` and the binary's frame addresses. */
const withStack = (firstLine: string): RegExp => new RegExp(`^${firstLine}\\nstack:(?: \\S+)*\\n?$`);

/** The faults whose report is followed by the two "Network connection lost" sequels. */
const LOST_CONNECTION_FAULTS = [
  withStack('exception = kj/async-io-unix\\.c\\+\\+:\\d+: disconnected: connect\\(\\): Connection refused'),
  withStack('exception = kj/async-io-unix\\.c\\+\\+:\\d+: disconnected: ::read\\(fd, buffer, maxBytes\\): Connection reset by peer'),
];

const CUT_SHORT_BODY = withStack(
  'exception = kj/compat/http\\.c\\+\\+:\\d+: disconnected: premature EOF in HTTP entity body; did not reach Content-Length; expectedLength = \\d+; alreadyRead = \\d+',
);

const CONNECTION_LOST_SEQUELS = [
  /^uncaught exception; source = Uncaught \(in promise\); stack = Error: Network connection lost\.\n?$/,
  withStack('uncaught exception; exception = workerd/jsg/[^:\\n]+:\\d+: disconnected: jsg\\.Error: Network connection lost\\.'),
];

/**
 * Decides, message by message in the order workerd wrote them, which to print. Stateful: each dropped
 * refused or reset connection allows one of each "Network connection lost" sequel to be dropped.
 */
export class WorkerdFaultFilter {
  private owedSequels = [0, 0];

  keep(message: string): boolean {
    if (LOST_CONNECTION_FAULTS.some((fault) => fault.test(message))) {
      this.owedSequels = this.owedSequels.map((owed) => owed + 1);
      return false;
    }
    if (CUT_SHORT_BODY.test(message)) return false;
    const sequel = CONNECTION_LOST_SEQUELS.findIndex((pattern) => pattern.test(message));
    if (sequel >= 0 && (this.owedSequels[sequel] as number) > 0) {
      this.owedSequels[sequel] = (this.owedSequels[sequel] as number) - 1;
      return false;
    }
    return true;
  }
}

/**
 * Filters this process's stdout through a WorkerdFaultFilter (the pool writes each workerd message in
 * one write); returns what restores it.
 */
export function dropInjectedWorkerdFaults(): () => void {
  const filter = new WorkerdFaultFilter();
  const write = process.stdout.write;
  process.stdout.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    if (typeof chunk === 'string' && !filter.keep(chunk)) return true;
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof process.stdout.write;
  return () => {
    process.stdout.write = write;
  };
}
