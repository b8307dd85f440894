/**
 * One set of rails: config/live-sim.yaml with a small `live.maxDaySpendSol`, run live on the
 * simulator's ledger and in paper on the simulator (recorded), then backtested. Live, paper and the
 * backtest refuse buys past the daily cap with the live admission module's code and wording, and
 * the backtest writes the paper run's decision log byte for byte.
 */
import { runRecording } from '../../src/research/record/run-recorder.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getBase58Decoder } from '@solana/kit';
import { afterAll, describe, expect, it } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { silentLogger } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { runBacktest } from '../../src/research/backtest/run-backtest.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { calibrate } from '../../src/research/calibrate/calibrate.js';
import { runLive } from '../../src/runtime/shell/run-live.js';
import { runPaper } from '../../src/runtime/shell/run-paper.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-rails-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 0.32 SOL a day: the fourth 0.1 SOL buy (amount plus fee budget) of a day passes the cap. */
const CAP = 'maxDaySpendSol: "0.32"';
const DAY_CAP_REASON = /^day \d{4}-\d\d-\d\d has \d+ lamports committed; this intent's \d+ would pass execution\.maxDayLamports 320000000$/;

const refusals = (log: string): { code: string; reason: string; outcome: string }[] =>
  log
    .split('\n')
    .filter((l) => l.includes('"kind":"unfilled"'))
    .map((l) => JSON.parse(l) as { code: string; reason: string; outcome: string })
    .filter((e) => e.code === 'LIVE_SPEND_CAP_DAY');

describe('the live rails in paper and backtests', () => {
  it('refuses buys past live.maxDaySpendSol live, in paper and in the backtest with the same code and wording', async () => {
    const walletPath = join(dir, 'wallet.json');
    writeNewKeypairFile(walletPath);
    const secret = getBase58Decoder().decode(Uint8Array.from(JSON.parse(readFileSync(walletPath, 'utf8')) as number[]));
    rmSync(walletPath);
    const base = readFileSync('config/live-sim.yaml', 'utf8').replace(/maxDaySpendSol: "[0-9.]+"/, CAP);
    expect(base).toContain(CAP);
    const liveFile = join(dir, 'live.yaml');
    writeFileSync(
      liveFile,
      base
        .replace('keypairPath: ./wallet.json', 'secretKey: ${WALLET_KEY}')
        .replace('./data/live-sim.journal.sqlite', join(dir, 'journal.sqlite'))
        .replace('logLevel: warn', `logLevel: warn\n  decisionLog: ${join(dir, 'live.decisions.jsonl')}`),
    );
    const live = await runLive({
      file: liveFile,
      live: true,
      durationMs: 8_000,
      seed: 7,
      env: { WALLET_KEY: secret },
      out: () => undefined,
      log: silentLogger(),
    });
    expect(live.exitCode).toBe(0);
    const liveRefusals = refusals(readFileSync(join(dir, 'live.decisions.jsonl'), 'utf8'));
    // calibrate reads the live journal and the decision log alike: the same fills, fee and rent.
    const fromJournal = calibrate([join(dir, 'journal.sqlite')]);
    const fromLog = calibrate([join(dir, 'live.decisions.jsonl')]);
    expect(fromJournal.fills).toBe(fromLog.fills);
    expect(fromJournal.rentLamports).toBe(2_039_280n);
    expect(fromJournal.feeLamports).toBe(fromLog.feeLamports);

    const paperFile = join(dir, 'paper.yaml');
    writeFileSync(
      paperFile,
      base
        .replace('./data/live-sim.journal.sqlite', join(dir, 'paper-store.sqlite'))
        .replace('logLevel: warn', `logLevel: warn\n  decisionLog: ${join(dir, 'paper.decisions.jsonl')}`)
        .concat(`record:\n  dir: ${join(dir, 'rec')}\n`),
    );
    await runPaper({ file: paperFile, recording: runRecording, durationMs: 8_000, seed: 7, out: () => undefined, log: silentLogger(), signals: false });
    const paperLog = readFileSync(join(dir, 'paper.decisions.jsonl'), 'utf8');
    const paperRefusals = refusals(paperLog);

    for (const r of [...liveRefusals, ...paperRefusals]) {
      expect(r.outcome).toBe('rejected');
      expect(r.reason).toMatch(DAY_CAP_REASON);
    }
    expect(liveRefusals.length).toBeGreaterThan(0);
    expect(paperRefusals.length).toBeGreaterThan(0);

    const bt = await runBacktest({ loaded: loadDeployment(paperFile), recording: readRecording(join(dir, 'rec')) });
    expect(bt.decisionLog).toBe(paperLog);
  }, 150_000);
});
