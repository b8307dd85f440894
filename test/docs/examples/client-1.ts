/** The example of docs/client.md (line 10); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
declare const mint: string;
declare const wallet: string;
// #region doc
import { createServiceClients, isLiquidityRow, WRAPPED_SOL_MINT } from '../../../src/index.js';

const svc = createServiceClients({
  apiKey: process.env.DATA_API_KEY,                 // token data + prediction APIs (x-api-key header)
  dataApi: { url: 'https://data.example' },          // {base_url}
  prediction: { url: 'https://pm.example' },         // {prediction_url}
  rpc: { url: 'https://rpc.example', apiKey: process.env.RPC_KEY }, // api_key query parameter
  swap: { url: 'https://swap.example' },             // {swap_url}
  timeoutMs: 10_000,
  retry: { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 5_000, maxElapsedMs: 30_000 },
});

const { price } = await svc.dataApi.getPrice(mint);
for await (const page of svc.dataApi.iterateTrades({ token: mint }, { events: 'liquidity', sortDirection: 'ASC' })) {
  for (const row of page.trades) if (isLiquidityRow(row)) console.log(row.time, row.tokens);
}
const { value: lamports } = await svc.rpc.getBalance(wallet, { commitment: 'confirmed' }); // bigint
const built = await svc.swap.buildSwap({ wallet, from: WRAPPED_SOL_MINT, to: mint, amount: '0.05', slippagePct: 1, priorityFeeSol: '0.0001' });
await svc.close();
// #endregion doc
