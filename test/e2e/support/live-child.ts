/**
 * The process the deployment-level crash test kills: `runLive` on the deployment in $FILE with
 * `--live` semantics, for $DURATION_MS when set (else until killed). Bundled once per test file
 * so each restart is a plain `node` start.
 */
import { runLive } from '../../../src/runtime/shell/run-live.js';

async function main(): Promise<void> {
  const file = process.env['FILE'];
  if (!file) throw new Error('missing FILE');
  const duration = process.env['DURATION_MS'];
  await runLive({ file, live: true, ...(duration ? { durationMs: Number(duration) } : {}) });
}

main().catch((e: unknown) => {
  process.stderr.write(`live child failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
