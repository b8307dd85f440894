import { describe, expect, it } from 'vitest';
import { lamports, rawAmount, type UnixMs } from '../../src/core/index.js';
import { createMarketView } from '../../src/engine/market/market-view.js';
import { createPortfolio, priceOf } from '../../src/engine/market/portfolio.js';
import { createRiskGate, type RiskLimits, type RiskRequest, type RiskState } from '../../src/engine/orders/risk-gate.js';

const SOL = 1_000_000_000n;

function state(opts: { cash?: bigint; pendingBuy?: bigint; lastBuyAt?: number } = {}) {
  const market = createMarketView();
  const portfolio = createPortfolio(opts.cash ?? 100n * SOL);
  const s: RiskState = {
    market,
    totals: () => portfolio.totals(),
    openOn: (mint) => portfolio.openOn(mint),
    position: (st, m) => portfolio.position(st, m),
    pendingBuyLamports: () => lamports(opts.pendingBuy ?? 0n),
    pendingSellRaw: () => rawAmount(0n),
    openingPositions: () => 0,
    opening: () => false,
    lastBuyAt: () => opts.lastBuyAt as UnixMs | undefined,
  };
  const buyFill = (mint: string, sol: bigint, tokens = 1_000_000n) =>
    portfolio.applyFill('s', {
      intentId: mint,
      side: 'buy',
      mint,
      decimals: 6,
      solAmount: lamports(sol),
      tokenAmount: rawAmount(tokens),
      feeLamports: lamports(0n),
      price: priceOf(sol, tokens, 6),
      filledAt: 0 as UnixMs,
    });
  return { s, market, portfolio, buyFill };
}

const buy = (spend: bigint, mint = 'M', at = 1_000): RiskRequest => ({ side: 'buy', strategyId: 's', mint, spendLamports: lamports(spend), at: at as UnixMs });

describe('risk gate', () => {
  it('allows a buy within every limit', () => {
    expect(createRiskGate({ maxTradeLamports: lamports(SOL), maxOpenPositions: 2 }).check(buy(SOL), state().s)).toEqual({ allowed: true });
  });

  it.each<[string, RiskLimits, bigint]>([
    ['RISK_TRADE_SIZE', { maxTradeLamports: lamports(SOL) }, 2n * SOL],
    ['RISK_MAX_EXPOSURE', { maxExposureLamports: lamports(3n * SOL) }, 2n * SOL],
    ['RISK_TOKEN_LIMIT', { maxPerTokenLamports: lamports(2n * SOL) }, SOL + 1n],
    ['RISK_MAX_OPEN_POSITIONS', { maxOpenPositions: 1 }, SOL],
  ])('denies with %s when the limit would be exceeded', (code, limits, amount) => {
    const st = state();
    st.buyFill('M', 2n * SOL);
    const d = createRiskGate(limits).check(buy(amount, code === 'RISK_MAX_OPEN_POSITIONS' ? 'OTHER' : 'M'), st.s);
    expect(d).toMatchObject({ allowed: false, code });
  });

  it('sums only the open positions on the token against the per-token limit', () => {
    const st = state();
    st.buyFill('OTHER', 2n * SOL);
    const gate = createRiskGate({ maxPerTokenLamports: lamports(2n * SOL) });
    expect(gate.check(buy(SOL + 1n, 'M'), st.s)).toEqual({ allowed: true });
    st.buyFill('M', SOL);
    expect(gate.check(buy(SOL + 1n, 'M'), st.s)).toMatchObject({ allowed: false, code: 'RISK_TOKEN_LIMIT' });
  });

  it('counts buys in flight against free cash', () => {
    const d = createRiskGate({}).check(buy(5n * SOL), state({ cash: 10n * SOL, pendingBuy: 6n * SOL }).s);
    expect(d).toMatchObject({ allowed: false, code: 'RISK_INSUFFICIENT_CASH' });
  });

  it('enforces the cooldown since the last buy of the token', () => {
    const gate = createRiskGate({ cooldownMs: 60_000 });
    expect(gate.check(buy(SOL, 'M', 30_000), state({ lastBuyAt: 0 }).s)).toMatchObject({ allowed: false, code: 'RISK_COOLDOWN' });
    expect(gate.check(buy(SOL, 'M', 60_000), state({ lastBuyAt: 0 }).s)).toEqual({ allowed: true });
  });

  it('applies deny and allow lists', () => {
    expect(createRiskGate({ denyMints: ['M'] }).check(buy(SOL), state().s)).toMatchObject({ code: 'RISK_TOKEN_DENIED' });
    expect(createRiskGate({ allowMints: ['X'] }).check(buy(SOL), state().s)).toMatchObject({ code: 'RISK_TOKEN_NOT_ALLOWED' });
  });

  it('filters on observed safety values and lets unknown values pass unless safety data is required', () => {
    const st = state();
    const gate = createRiskGate({ maxBundlerPct: 20, minHolders: 50 });
    expect(gate.check(buy(SOL), st.s)).toEqual({ allowed: true });
    st.market.observe({
      type: 'safety',
      room: 'bundlers:M',
      receivedAt: 0 as UnixMs,
      origin: 'live',
      mint: 'M',
      signal: 'bundlers',
      current: 35,
      previous: 10,
    });
    expect(gate.check(buy(SOL), st.s)).toMatchObject({ allowed: false, code: 'RISK_SAFETY_BUNDLERS', context: { value: 35, max: 20 } });
    expect(createRiskGate({ minHolders: 50, requireSafetyData: true }).check(buy(SOL), state().s)).toMatchObject({ code: 'RISK_MIN_HOLDERS' });
  });

  it('halts buys for the rest of the UTC day once the daily loss limit is reached, and allows them the next day', () => {
    const st = state({ cash: 10n * SOL });
    st.buyFill('M', 4n * SOL, 4_000_000n);
    const gate = createRiskGate({ dailyLossLimitLamports: lamports(SOL) });
    expect(gate.check(buy(SOL, 'X'), st.s)).toEqual({ allowed: true });
    st.portfolio.mark('M', '0.5'); // position now worth 2 SOL: 2 SOL loss
    expect(gate.check(buy(SOL, 'X'), st.s)).toMatchObject({ allowed: false, code: 'RISK_DAILY_LOSS_HALT' });
    expect(gate.halted(1_000 as UnixMs)).toBe(true);
    st.portfolio.mark('M', '1');
    expect(gate.check(buy(SOL, 'X', 2_000), st.s)).toMatchObject({ code: 'RISK_DAILY_LOSS_HALT' });
    expect(gate.halted(86_400_000 as UnixMs)).toBe(false);
  });

  it('denies every buy under the kill switch but still lets positions be sold', () => {
    const st = state();
    st.buyFill('M', SOL);
    const gate = createRiskGate({});
    gate.kill('operator');
    expect(gate.check(buy(SOL), st.s)).toMatchObject({ allowed: false, code: 'RISK_KILL_SWITCH' });
    expect(gate.check({ side: 'sell', strategyId: 's', mint: 'M', sellRaw: rawAmount(1_000_000n), at: 0 as UnixMs }, st.s)).toEqual({ allowed: true });
    gate.resume();
    expect(gate.check(buy(SOL), st.s)).toEqual({ allowed: true });
  });

  it('denies a sell larger than the position as a value, never by throwing', () => {
    const st = state();
    st.buyFill('M', SOL, 10n);
    expect(createRiskGate({}).check({ side: 'sell', strategyId: 's', mint: 'M', sellRaw: rawAmount(11n), at: 0 as UnixMs }, st.s)).toMatchObject({
      allowed: false,
      code: 'RISK_NO_POSITION',
    });
    expect(createRiskGate({}).check(buy(0n), st.s)).toMatchObject({ allowed: false, code: 'RISK_INVALID_AMOUNT' });
  });
});
