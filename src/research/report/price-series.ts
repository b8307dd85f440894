/**
 * One token's sampled prices for the report's charts, held compactly: run-clock times and SOL
 * prices as numbers, side by side in one growing Float64Array (16 bytes a sample, where a tuple of
 * a time and a decimal string took about 100). A backtest samples every token it decided on while it
 * is active, and a long recording has thousands of them, while the report charts only the most
 * traded few: the samples are kept as the chart reads them (`Number` of the exact price), not as text.
 */
export class PriceSeries {
  private data = new Float64Array(16);
  private n = 0;
  private lastPrice: string | undefined;

  /**
   * Adds a sample, unless `price` is the last one added (compared as the exact string, so a sample
   * is kept exactly when the text would have changed).
   */
  push(at: number, price: string): void {
    if (price === this.lastPrice) return;
    this.lastPrice = price;
    if (2 * this.n + 2 > this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[2 * this.n] = at;
    this.data[2 * this.n + 1] = Number(price);
    this.n++;
  }

  /** Samples held. */
  get length(): number {
    return this.n;
  }

  /** The samples as chart points: [run-clock time, SOL per token]. */
  points(): (readonly [number, number])[] {
    const out: (readonly [number, number])[] = new Array<readonly [number, number]>(this.n);
    for (let k = 0; k < this.n; k++) out[k] = [this.data[2 * k]!, this.data[2 * k + 1]!];
    return out;
  }
}
