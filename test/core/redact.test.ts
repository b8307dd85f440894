import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRedactor, redactUrl, REDACTED } from '../../src/core/redact.js';
import { createLogger } from '../../src/core/logger.js';

describe('redaction', () => {
  const key = 'sk_live_0123456789abcdef';

  it('removes registered secrets from text, URLs and nested values, and drops key-named fields', () => {
    const r = createRedactor([key]);
    expect(r.redact(`wss://stream.example/${key}`)).toBe(`wss://stream.example/${REDACTED}`);
    expect(redactUrl(`http://rpc.example/?api_key=${key}&x=1`)).toBe(`http://rpc.example/?api_key=${REDACTED}&x=1`);
    const v = r.redactValue({ a: [`x ${key} y`], apiKey: 'whatever', nested: { err: new Error(`bad ${key}`) } });
    expect(JSON.stringify(v)).not.toContain(key);
    expect(v.apiKey).toBe(REDACTED);
  });

  it('never lets a registered secret reach a log line, whatever field it hides in', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const r = createRedactor();
    r.add(key);
    const log = createLogger({ redactor: r, destination: sink });
    log.info({ url: `http://x/?api_key=${key}`, deep: { list: [key] } }, `connecting with ${key}`);
    log.error({ err: new Error(`failed for ${key}`) }, 'boom');
    expect(lines.length).toBe(2);
    for (const line of lines) expect(line).not.toContain(key);
    expect(lines.join('')).toContain(REDACTED);
  });
});
