/**
 * The only errors the pure builders throw. Messages are fixed strings: a
 * ContractError never carries the input that caused it, so it can be surfaced
 * or logged without echoing a path or any note text.
 */
export type ContractErrorKind = 'InvalidPath' | 'NoteTooLarge' | 'NoteTooComplex';

const MESSAGES: Record<ContractErrorKind, string> = {
  InvalidPath: 'Invalid path',
  NoteTooLarge: 'Note too large',
  NoteTooComplex: 'Note structure too large',
};

export class ContractError extends Error {
  readonly kind: ContractErrorKind;
  constructor(kind: ContractErrorKind) {
    super(MESSAGES[kind]);
    this.name = 'ContractError';
    this.kind = kind;
  }
}

export const invalidPath = (): ContractError => new ContractError('InvalidPath');
