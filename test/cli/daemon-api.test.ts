/**
 * The CLI's client of the control API reports a refusal with the daemon's own code, so that the
 * printed hint fits it (a risk denial is not blamed on the token). A real HTTP server on 127.0.0.1
 * answers as the daemon does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/error-codes.js';
import { daemonApi } from '../../src/cli/daemon-api.js';
import { errorHint, formatCliError } from '../../src/cli/print-error.js';

/** What the stand-in daemon answers, by path: status, content type and body. */
const ANSWERS: Record<string, readonly [number, string, string]> = {
  '/api/deployments/d/entries': [
    409,
    'application/json',
    JSON.stringify({ error: { code: 'RISK_TRADE_SIZE', message: 'buy of 5000000000 lamports exceeds maxTradeLamports 500000000' } }),
  ],
  '/api/deployments': [401, 'application/json', JSON.stringify({ error: { code: 'RUNTIME_API_UNAUTHORIZED', message: 'missing or wrong bearer token' } })],
  '/api/other': [409, 'application/json', JSON.stringify({ error: { code: 'SOME_FUTURE_CODE', message: 'not known here' } })],
  '/api/proxy': [502, 'text/plain', 'bad gateway'],
};

let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const [status, type, body] = ANSWERS[req.url ?? ''] ?? [404, 'application/json', '{}'];
    req.resume();
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});

const refusal = async (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => {
      throw new Error('the call did not fail');
    },
    (e: unknown) => e,
  );
const api = () => daemonApi({ url, env: { CHAINPILOT_API_TOKEN: 'tok' }, dataDir: '/nonexistent' });

describe('the CLI client of the control API', () => {
  it("prints a risk denial with the daemon's code and that code's hint, not a token hint", async () => {
    const e = await refusal(api().post('/api/deployments/d/entries', { mint: 'M', spendLamports: '5000000000' }));
    expect(e).toMatchObject({ code: 'RISK_TRADE_SIZE' });
    const text = formatCliError(e);
    expect(text).toBe(
      `RISK_TRADE_SIZE: POST /api/deployments/d/entries: HTTP 409: buy of 5000000000 lamports exceeds maxTradeLamports 500000000\n${errorHint('RISK_TRADE_SIZE')}\n`,
    );
    expect(text).not.toContain('wrong token');
  });

  it("names the server's 401 code and says where the token comes from", async () => {
    const e = await refusal(api().get('/api/deployments'));
    expect(e).toMatchObject({ code: 'RUNTIME_API_UNAUTHORIZED', message: expect.stringContaining('set CHAINPILOT_API_TOKEN') as string });
    expect(formatCliError(e)).toContain(ERROR_CODES.RUNTIME_API_UNAUTHORIZED);
  });

  it('falls back to CLI_API_REFUSED, with the status and the answer, for a code it does not know or a body that is not the API', async () => {
    expect(await refusal(api().get('/api/other'))).toMatchObject({ code: 'CLI_API_REFUSED', message: 'GET /api/other: HTTP 409: not known here' });
    expect(await refusal(api().get('/api/proxy'))).toMatchObject({ code: 'CLI_API_REFUSED', message: 'GET /api/proxy: HTTP 502: bad gateway' });
  });
});
