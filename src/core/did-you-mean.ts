/** "Did you mean": the known name closest to a mistyped one, when it is close enough to be a typo. */

/** Edits (insert, delete, replace, swap of neighbours) that turn `a` into `b`, up to `max` + 1. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `word` (case ignored), or undefined when none is within a typo's reach:
 * one edit for short names, up to a third of the name's length for longer ones.
 */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  const max = Math.max(1, Math.floor(w.length / 3));
  let best: string | undefined;
  let bestD = max + 1;
  for (const c of candidates) {
    if (c === word) continue;
    const d = distance(w, c.toLowerCase(), max);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` for the closest candidate, or nothing. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closestName(word, candidates);
  return c === undefined ? '' : ` (did you mean ${JSON.stringify(c)}?)`;
}
