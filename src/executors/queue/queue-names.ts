/** Names shared by the engine side and the workers: one BullMQ queue per wallet, one key prefix. */

/** Default prefix of every chainpilot key on Redis (BullMQ queues and journals alike). */
export const DEFAULT_QUEUE_PREFIX = 'chainpilot';

/**
 * Default number of a wallet's jobs running at once (`execution.queue.concurrency`): all in the one
 * worker holding the wallet's lease, sends kept in decision order (wallet-worker.ts).
 */
export const DEFAULT_WALLET_CONCURRENCY = 32;

/** Consumer group of the engine on a wallet's report stream (before issue 25: one shared group). */
export const REPORT_GROUP = 'engine';

/** The consumer group of one engine (by its consumer name) on a wallet's report stream. */
export function reportGroupOf(consumer: string): string {
  return `${REPORT_GROUP}:${consumer}`;
}

/** BullMQ queue name of a wallet (`:` is not allowed in BullMQ queue names). */
export function walletQueueName(wallet: string): string {
  return `wallet-${wallet}`;
}

/** What a job carries: the intent, encoded by the journal codec (no secrets, no keys). */
export interface IntentJobData {
  readonly intent: string;
}
