import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { getBase58Decoder } from '@solana/kit';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import { createLogger } from '../../src/core/logger.js';
import { assertPrivateKeyFile, keypairSigner, signerFromEnv, signerFromKeypairFile } from '../../src/executors/signer/signer.js';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { createHarness, startHarness, WALLET_KEY } from './support/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'chainpilot-signer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const secret = WALLET_KEY.secretKey;
const forms = [
  getBase58Decoder().decode(secret),
  getBase58Decoder().decode(secret.subarray(0, 32)),
  JSON.stringify(Array.from(secret)),
  Array.from(secret).join(','),
  Buffer.from(secret).toString('hex'),
  Buffer.from(secret.subarray(0, 32)).toString('hex'),
  Buffer.from(secret).toString('base64'),
  Buffer.from(secret.subarray(0, 32)).toString('base64'),
];
const leaks = (text: string): string[] => forms.filter((f) => text.includes(f));

describe('signer', () => {
  it('loads the same wallet from a keypair file and from an environment variable', () => {
    const file = join(dir, 'k.json');
    writeFileSync(file, JSON.stringify(Array.from(secret)), { mode: 0o600 });
    expect(signerFromKeypairFile(file).address).toBe(WALLET_KEY.publicKey.toBase58());
    expect(signerFromEnv('KEY', { KEY: getBase58Decoder().decode(secret) }).address).toBe(WALLET_KEY.publicKey.toBase58());
    expect(signerFromEnv('KEY', { KEY: JSON.stringify(Array.from(secret)) }).address).toBe(WALLET_KEY.publicKey.toBase58());
  });

  it('names the source and the fix on bad key material, without echoing the material', () => {
    const truncated = JSON.stringify(Array.from(secret.subarray(0, 63)));
    const file = join(dir, 'bad.json');
    writeFileSync(file, truncated, { mode: 0o600 });
    const errors: unknown[] = [];
    for (const f of [() => signerFromKeypairFile(file), () => signerFromEnv('KEY', { KEY: truncated }), () => signerFromEnv('KEY', { KEY: `${forms[0]!}x` })]) {
      try {
        f();
      } catch (e) {
        errors.push(e);
      }
    }
    expect(errors.map((e) => (e as { code: string }).code)).toEqual(['EXEC_SIGNER_KEY_INVALID', 'EXEC_SIGNER_KEY_INVALID', 'EXEC_SIGNER_KEY_INVALID']);
    for (const e of errors) {
      const text = `${(e as Error).message} ${JSON.stringify(e)} ${inspect(e)}`;
      expect(leaks(text)).toEqual([]);
      expect(text).not.toContain(truncated.slice(1, 40));
    }
    expect(() => signerFromEnv('MISSING', {})).toThrow(expect.objectContaining({ code: 'EXEC_SIGNER_KEY_MISSING' }));
  });

  it('shows nothing secret when serialised or inspected', () => {
    const s = keypairSigner(WALLET_KEY);
    expect(leaks(`${JSON.stringify(s)} ${inspect(s, { depth: 10, showHidden: true })} ${String(s)}`)).toEqual([]);
  });

  it('never lets the wallet key reach a log line, the journal file or a report during live trading', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    // An empty redactor: the test proves the key never gets near the logger, not that redaction hides it.
    const h = await createHarness({ logger: createLogger({ redactor: createRedactor(), destination: sink, level: 'trace' }) });
    try {
      await startHarness(h);
      h.chain.fates.push({ kind: 'fail' }, { kind: 'drop' }, { kind: 'land' });
      h.chain.failNext('getSignatureStatuses', 10);
      await h.executor.submit(h.intent(1));
      await h.executor.submit(h.intent(2));
      await h.runUntil(() => h.reports.filter((r) => r.type !== 'accepted').length === 2);
      h.swap.mode = 'drain';
      await h.executor.submit(h.intent(3, { spendLamports: 1000n }));
      await h.runUntil(() => h.reports.filter((r) => r.type !== 'accepted').length === 3);
      expect(h.reports.map((r) => r.type).sort()).toEqual(['accepted', 'accepted', 'accepted', 'failed', 'filled', 'rejected']);
      expect(lines.length).toBeGreaterThan(3);
      const journalBytes = [h.journalPath, `${h.journalPath}-wal`].map((p) => (existsSync(p) ? readFileSync(p).toString('latin1') : '')).join('');
      const reports = JSON.stringify(h.reports, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      expect(leaks(lines.join(''))).toEqual([]);
      expect(leaks(journalBytes)).toEqual([]);
      expect(leaks(reports)).toEqual([]);
      // the journal does hold what it must: the signed bytes of every attempt
      expect((await h.journal.get('int-1'))?.attempts[0]?.txBase64.length).toBeGreaterThan(100);
    } finally {
      await h.close();
    }
  });
});

describe('keypair file permissions', () => {
  it.each([0o644, 0o640, 0o604, 0o666, 0o620, 0o602])('refuses a keypair file with mode %o and names chmod 600', (mode) => {
    const file = join(dir, `open-${mode.toString(8)}.json`);
    writeFileSync(file, JSON.stringify(Array.from(secret)));
    chmodSync(file, mode);
    let error: unknown;
    try {
      signerFromKeypairFile(file);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'EXEC_WALLET_FILE_PERMISSIONS' });
    expect((error as Error).message).toContain(`has mode 0${mode.toString(8)}`);
    expect((error as Error).message).toContain(`run \`chmod 600 ${file}\``);
    expect(leaks((error as Error).message)).toEqual([]);
  });

  it('accepts 0600 and 0400, and skips the check on Windows', () => {
    const file = join(dir, 'private.json');
    writeFileSync(file, JSON.stringify(Array.from(secret)));
    for (const mode of [0o600, 0o400]) {
      chmodSync(file, mode);
      expect(signerFromKeypairFile(file).address).toBe(WALLET_KEY.publicKey.toBase58());
    }
    chmodSync(file, 0o644);
    expect(() => assertPrivateKeyFile(file, 'win32')).not.toThrow();
  });
});

describe('chainpilot wallet new', () => {
  it('writes a loadable keypair file with mode 0600 and prints only the address', () => {
    const out = join(dir, 'cli-wallet.json');
    const stdout = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'wallet', 'new', '--out', out], { encoding: 'utf8' });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const signer = signerFromKeypairFile(out);
    expect(stdout).toContain(signer.address);
    const material = JSON.parse(readFileSync(out, 'utf8')) as number[];
    expect(material).toHaveLength(64);
    expect(stdout).not.toContain(getBase58Decoder().decode(Uint8Array.from(material)));
    expect(stdout).not.toContain(material.join(','));
  });

  it('refuses to overwrite an existing wallet file', () => {
    const out = join(dir, 'existing.json');
    const first = writeNewKeypairFile(out);
    const before = readFileSync(out, 'utf8');
    expect(() => writeNewKeypairFile(out)).toThrow(expect.objectContaining({ code: 'EXEC_WALLET_FILE_EXISTS' }));
    expect(readFileSync(out, 'utf8')).toBe(before);
    expect(signerFromKeypairFile(out).address).toBe(first);
  });
});
