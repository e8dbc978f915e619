import { expect } from 'vitest';
import { ContractError, type ContractErrorKind } from '../../../src/contracts';

const MESSAGES: Record<ContractErrorKind, string> = {
  InvalidPath: 'Invalid path',
  NoteTooLarge: 'Note too large',
  NoteTooComplex: 'Note structure too large',
};

/** Asserts `run` throws exactly the typed ContractError of this kind, with its fixed message. */
export function expectContractError(kind: ContractErrorKind, run: () => unknown): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ContractError);
  const error = caught as ContractError;
  expect(error.kind).toBe(kind);
  expect(error.message).toBe(MESSAGES[kind]);
  expect(error.name).toBe('ContractError');
}

export const expectInvalidPath = (run: () => unknown): void => expectContractError('InvalidPath', run);
export const expectNoteTooLarge = (run: () => unknown): void => expectContractError('NoteTooLarge', run);
