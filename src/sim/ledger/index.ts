/**
 * Part 2 of the simulator: the LiteSVM ledger, its JSON-RPC server and the swap service, plugged
 * into `startSimulator({ services: [ledgerServices()] })`.
 */
import type { SimServiceFactory } from '../market-port.js';
import { startRpcServer } from '../rpc/rpc-server.js';
import { rpcMethods } from '../rpc/rpc-methods.js';
import { createSwapBuilder, type SwapTransactionFormat } from '../swap/swap-builder.js';
import { startSwapServer } from '../swap/swap-server.js';
import type { FaultRates } from './faults.js';
import { createLedger } from './ledger.js';
import type { Ledger, LedgerOptions } from './ledger-types.js';

export interface LedgerServicesOptions extends Pick<
  LedgerOptions,
  'slotMs' | 'validBlocks' | 'confirmAfterSlots' | 'finalizeAfterSlots' | 'statusCacheSlots' | 'landing'
> {
  readonly faults?: FaultRates;
  /** Fixed ports (0 or absent = ephemeral). */
  readonly rpcPort?: number;
  readonly swapPort?: number;
  /** The swap service's transactions: `legacy` (default) or `v0` loading the pool's token vault and the mint from a lookup table (src/sim/swap/swap-builder.ts). */
  readonly swapTransactions?: SwapTransactionFormat;
  /** Called with the ledger once it exists (tests and benches use it to inject faults, airdrop, read state). */
  readonly onLedger?: (ledger: Ledger) => void;
}

/**
 * A simulator service factory: creates the ledger on the simulator's clock, market and random
 * source, then serves JSON-RPC at `urls.rpc` (needs `?api_key=<ctx.apiKey>`) and the swap service at
 * `urls.swap` (POST `${urls.swap}/swap`).
 */
export function ledgerServices(options: LedgerServicesOptions = {}): SimServiceFactory {
  return async (ctx) => {
    const { rpcPort: _rpcPort, swapPort: _swapPort, onLedger: _onLedger, swapTransactions, ...knobs } = options;
    const ledger = createLedger({ ...knobs, market: ctx.market, clock: ctx.clock, random: ctx.random.fork('ledger'), log: ctx.log });
    options.onLedger?.(ledger);
    const builder = createSwapBuilder({
      market: ctx.market,
      ledger,
      random: ctx.random.fork('swap'),
      ...(swapTransactions ? { transactions: swapTransactions } : {}),
    });
    let rpc: Awaited<ReturnType<typeof startRpcServer>> | undefined;
    try {
      rpc = await startRpcServer({
        host: ctx.host,
        port: options.rpcPort ?? 0,
        apiKey: ctx.apiKey,
        methods: rpcMethods(ledger),
        faults: ledger.faults,
        log: ctx.log,
      });
      const swap = await startSwapServer({ host: ctx.host, port: options.swapPort ?? 0, builder, log: ctx.log });
      const rpcServer = rpc;
      return {
        urls: { rpc: `${rpcServer.url}/`, swap: swap.url },
        async stop() {
          ledger.stop();
          await Promise.all([rpcServer.close(), swap.close()]);
        },
      };
    } catch (e) {
      ledger.stop();
      await rpc?.close();
      throw e;
    }
  };
}

export { createLedger } from './ledger.js';
export type { Ledger, LedgerOptions, LedgerAccount, PoolAccounts, SignatureStatusView, SendResult, LedgerRefusal } from './ledger-types.js';
export type { FaultPlan, FaultRates, LandingFault, RpcFault } from './faults.js';
export type { SwapTransactionFormat } from '../swap/swap-builder.js';
export { WRAPPED_SOL_MINT } from '../swap/swap-request.js';
