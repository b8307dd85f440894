/**
 * Slots, block height and the window of recent blockhashes. Each blockhash is valid while the block
 * height is at most its `lastValidBlockHeight` (height at issue + `validBlocks`, 150 on mainnet).
 * LiteSVM keeps no such window (it only knows its latest blockhash), so the ledger checks
 * blockhashes here and runs LiteSVM with its own blockhash check off.
 */
export interface BlockWindowOptions {
  /** Blocks a blockhash stays valid for after the block that issued it. */
  readonly validBlocks: number;
  readonly firstSlot: number;
}

export interface IssuedBlockhash {
  readonly blockhash: string;
  readonly lastValidBlockHeight: number;
}

export interface BlockWindow {
  slot(): number;
  blockHeight(): number;
  latest(): IssuedBlockhash;
  /** Moves to the next slot, which issues `blockhash`. */
  advance(blockhash: string): void;
  /** `lastValidBlockHeight` of a known blockhash, or undefined when never issued (or long forgotten). */
  lastValidOf(blockhash: string): number | undefined;
  /** True while `blockhash` can still land at the current height. */
  isValid(blockhash: string): boolean;
}

/** Creates the window with `genesis` as the first blockhash. */
export function createBlockWindow(genesis: string, options: BlockWindowOptions): BlockWindow {
  let slot = options.firstSlot;
  let height = options.firstSlot;
  const lastValid = new Map<string, number>();
  let latest: IssuedBlockhash = { blockhash: genesis, lastValidBlockHeight: height + options.validBlocks };
  lastValid.set(genesis, latest.lastValidBlockHeight);

  return {
    slot: () => slot,
    blockHeight: () => height,
    latest: () => latest,
    advance(blockhash) {
      slot++;
      height++;
      latest = { blockhash, lastValidBlockHeight: height + options.validBlocks };
      lastValid.set(blockhash, latest.lastValidBlockHeight);
      // Forget hashes long expired (Map iterates in insertion order, oldest first).
      for (const [hash, lv] of lastValid) {
        if (lv >= height - options.validBlocks) break;
        lastValid.delete(hash);
      }
    },
    lastValidOf: (blockhash) => lastValid.get(blockhash),
    isValid(blockhash) {
      const lv = lastValid.get(blockhash);
      return lv !== undefined && height <= lv;
    },
  };
}
