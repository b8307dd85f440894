/**
 * `runLive` end to end on the embedded simulator's ledger, as `chainpilot run config/live-sim.yaml
 * --live` runs it: real Datastream, real swaps built by the swap service, signed with a fresh
 * wallet, sent and confirmed over JSON-RPC, journaled in SQLite. The chain, the journal and the
 * portfolio are then compared with each other.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { getBase58Decoder } from '@solana/kit';
import { silentLogger } from '../../src/core/index.js';
import { runLive } from '../../src/runtime/shell/run-live.js';
import { readChain, type ChainCheck } from './live-chain.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The shipped config/live-sim.yaml with a temp store path and a fresh wallet file. */
function shippedConfig(): { file: string; storePath: string; walletPath: string } {
  dir = mkdtempSync(join(tmpdir(), 'cp-live-e2e-'));
  const walletPath = join(dir, 'wallet.json');
  writeNewKeypairFile(walletPath);
  const storePath = join(dir, 'journal.sqlite');
  const yaml = readFileSync('config/live-sim.yaml', 'utf8');
  expect(yaml).toContain('keypairPath: ./wallet.json');
  expect(yaml).toContain('path: ./data/live-sim.journal.sqlite');
  const file = join(dir, 'live.yaml');
  writeFileSync(
    file,
    yaml.replace('./wallet.json', walletPath).replace('./data/live-sim.journal.sqlite', storePath).replace('statusInterval: 5s', 'statusInterval: 500ms'),
  );
  return { file, storePath, walletPath };
}

/** The base58 form of a 64-byte secret key (what `wallet.secretKey` accepts besides the JSON array). */
function bs58Of(bytes: number[]): string {
  return getBase58Decoder().decode(Uint8Array.from(bytes));
}

describe('runLive on the embedded simulator', () => {
  it('trades the shipped live-sim deployment on the ledger: every intent lands at most once and the portfolio equals the wallet on chain', async () => {
    const { file, storePath } = shippedConfig();
    let check: ChainCheck | undefined;
    const printed: string[] = [];
    const result = await runLive({
      file,
      live: true,
      durationMs: 6_000,
      seed: 7,
      out: (t) => printed.push(t),
      log: silentLogger(),
      inspect: async (view) => {
        check = await readChain(view, storePath);
      },
    });
    const c = check!;
    const text = printed.join('');
    expect(text).toContain(
      `chainpilot run --live: live-sim with curve-momentum, graduation-sniper on the embedded simulator's ledger (seed 7); wallet ${result.wallet} holds 10 SOL`,
    );

    // Intents landed on the ledger, and the journal agrees with the chain signature by signature.
    const landed = c.intents.filter((r) => r.state === 'LANDED');
    expect(landed.length).toBeGreaterThan(0);
    expect(c.landedOnChain.size).toBe(landed.length);
    for (const r of c.intents) {
      const sigs = c.attempts.filter((a) => a.intent_id === r.id).map((a) => a.signature);
      const onChain = sigs.filter((s) => c.landedOnChain.has(s) || c.failedOnChain.has(s));
      expect(onChain.length, `intent ${r.id} has at most one transaction on chain`).toBeLessThanOrEqual(1);
      if (r.state === 'LANDED') {
        const fill = JSON.parse(r.fill_json ?? '{}') as { signature?: string };
        expect(c.landedOnChain.has(fill.signature ?? '')).toBe(true);
      } else {
        expect(
          sigs.some((s) => c.landedOnChain.has(s)),
          `intent ${r.id} (${r.state}) has no landed swap`,
        ).toBe(false);
      }
    }
    // Every landed swap reached the portfolio exactly once, nothing was left unresolved.
    expect(result.unresolvedIntents).toBe(0);
    expect(result.summary.fills).toBe(landed.length);
    expect(c.intents.some((r) => (JSON.parse(r.intent_json) as { side: string }).side === 'sell' && r.state === 'LANDED')).toBe(true);

    // Token balances: portfolio (summed over strategies) equals the wallet's token accounts on chain.
    const nonZero = (m: Map<string, bigint>): [string, bigint][] => [...m].filter(([, v]) => v > 0n).sort(([a], [b]) => a.localeCompare(b));
    expect(nonZero(c.portfolioTokens)).toEqual(nonZero(c.tokensOnChain));
    // SOL: the fills carry every lamport the wallet moved (fees, and the rent of token accounts the
    // swaps opened, inside the buys' solAmount), so cash equals the wallet's SOL balance exactly.
    expect(c.cashLamports).toBe(c.walletLamports);
    expect(result.walletLamports).toBe(c.walletLamports);
    expect(c.walletLamports).not.toBe(10_000_000_000n); // the swaps moved SOL
    expect(text).toMatch(/wallet \w+: [\d.]+ SOL on chain, portfolio cash [\d.]+ SOL; 0 intent\(s\) left/);
  }, 60_000);

  it('takes the wallet from wallet.secretKey in the environment and never writes the key to output or debug logs', async () => {
    const { file, walletPath } = shippedConfig();
    const keyJson = readFileSync(walletPath, 'utf8');
    const secret = bs58Of(JSON.parse(keyJson) as number[]);
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(`keypairPath: ${walletPath}`, 'secretKey: ${WALLET_KEY}').replace('logLevel: warn', 'logLevel: debug'),
    );
    rmSync(walletPath);
    const printed: string[] = [];
    const logged: string[] = [];
    const result = await runLive({
      file,
      live: true,
      durationMs: 3_000,
      seed: 3,
      env: { WALLET_KEY: secret },
      out: (t) => printed.push(t),
      logDestination: { write: (l: string) => void logged.push(l) },
    });
    expect(logged.length).toBeGreaterThan(0);
    const all = printed.join('') + logged.join('');
    expect(all).toContain(result.wallet);
    expect(all).not.toContain(secret);
    expect(all).not.toContain(keyJson.slice(1, 40));
  }, 60_000);
});
