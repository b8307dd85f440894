/**
 * Converts LiteSVM's transaction errors to the JSON shape a Solana RPC node serves
 * (`"BlockhashNotFound"`, `{"InstructionError":[2,{"Custom":1}]}`, ...).
 */
import type { FailedTransactionMetadata } from 'litesvm';

/** A transaction error as Solana serves it in JSON. */
export type TxErrorJson = string | { readonly [kind: string]: unknown };

const TX_FIELDLESS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

const IX_FIELDLESS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
] as const;

function instructionErrorJson(e: unknown): TxErrorJson {
  if (typeof e === 'number') return IX_FIELDLESS[e] ?? `InstructionError${e}`;
  if (e !== null && typeof e === 'object') {
    if ('code' in e && typeof e.code === 'number') return { Custom: e.code };
    if ('msg' in e && typeof e.msg === 'string') return { BorshIoError: e.msg };
  }
  return 'GenericError';
}

/** The JSON form of a LiteSVM transaction error. */
export function txErrorJson(err: ReturnType<FailedTransactionMetadata['err']>): TxErrorJson {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- an out-of-range index is undefined at runtime
  if (typeof err === 'number') return TX_FIELDLESS[err] ?? `TransactionError${err}`;
  const text = err.toString();
  if ('err' in err && typeof err.err === 'function') return { InstructionError: [err.index, instructionErrorJson(err.err())] };
  if ('index' in err) return { DuplicateInstruction: err.index };
  const kind = text.startsWith('ProgramExecutionTemporarilyRestricted') ? 'ProgramExecutionTemporarilyRestricted' : 'InsufficientFundsForRent';
  return { [kind]: { account_index: err.accountIndex } };
}

/**
 * True when the runtime refused the transaction before executing it (it never lands, pays no fee):
 * every fieldless error is such a refusal; instruction errors land as failed transactions.
 */
export function isRefusal(err: TxErrorJson): boolean {
  return typeof err === 'string';
}

const PHRASES: Readonly<Record<string, string>> = {
  BlockhashNotFound: 'Blockhash not found',
  AlreadyProcessed: 'This transaction has already been processed',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  SignatureFailure: 'Transaction did not pass signature verification',
};

/** The validator's wording for a transaction error (`Error processing Instruction 2: custom program error: 0x1771`). */
export function describeTxError(err: TxErrorJson): string {
  if (typeof err === 'string') return (Object.hasOwn(PHRASES, err) ? PHRASES[err] : undefined) ?? err;
  const ix = err['InstructionError'];
  if (Array.isArray(ix) && typeof ix[0] === 'number') {
    const inner: unknown = ix[1];
    const what =
      inner !== null && typeof inner === 'object' && 'Custom' in inner && typeof inner.Custom === 'number'
        ? `custom program error: 0x${inner.Custom.toString(16)}`
        : String(inner);
    return `Error processing Instruction ${ix[0]}: ${what}`;
  }
  return JSON.stringify(err);
}
