/** The answer of inspection: pass (with what it measured or proved), or a coded rejection. */
import type { ErrorCode } from '../../core/error-codes.js';

export type InspectionResult =
  | {
      readonly ok: true;
      readonly blockhash: string;
      readonly priorityFeeLamports: bigint;
      /**
       * Simulated change of our output balance (raw tokens for a buy; lamports for a sell, net of
       * rent: see `rent`); absent in `static` mode.
       */
      readonly simulatedOut?: bigint;
      /** Output proven from decoded instructions (`static` mode). */
      readonly provenOut?: bigint;
      /**
       * Rent the simulation showed moving, never part of `simulatedOut`: `paidLamports` into token
       * accounts of ours the transaction creates, `returnedLamports` out of token accounts of ours
       * it closes (their wrapped SOL excluded). `simulate` mode only.
       */
      readonly rent?: { readonly paidLamports: bigint; readonly returnedLamports: bigint };
    }
  | { readonly ok: false; readonly code: ErrorCode; readonly reason: string };

export const reject = (code: ErrorCode, reason: string): InspectionResult => ({ ok: false, code, reason });
