/**
 * Limits every frame must respect before anything else looks at it. Frame size is bounded by the
 * socket itself (`maxPayload`); nesting depth is checked here, right after `JSON.parse`, so no
 * later step (guards, dedup identity, strategies, logs) ever walks a payload thousands of levels
 * deep. The walk stops at the limit, so its recursion is bounded too.
 */

/**
 * False when the JSON `text` cannot nest more than `maxDepth` levels: every object or array on a
 * nesting path opens with its own `{` or `[`, so a text with at most `maxDepth` of them (counted
 * anywhere, strings included) is shallow enough. A native search per bracket, stopping after
 * `maxDepth + 1`: cheaper than walking the parsed value, which only a text with more brackets needs
 * (`exceedsDepth` then decides exactly).
 */
export function mayExceedDepth(text: string, maxDepth: number): boolean {
  let n = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++n > maxDepth) return true;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++n > maxDepth) return true;
  return false;
}

/** True when `value` nests objects or arrays more than `maxDepth` levels (the value itself is level 1). */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  return typeof value === 'object' && value !== null && containerExceeds(value, maxDepth);
}

/** `exceedsDepth` of a container: recurses only into containers (no call per primitive value). */
function containerExceeds(value: object, maxDepth: number): boolean {
  if (maxDepth <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const x: unknown = value[i];
      if (typeof x === 'object' && x !== null && containerExceeds(x, maxDepth - 1)) return true;
    }
    return false;
  }
  const o = value as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'object' && x !== null && containerExceeds(x, maxDepth - 1)) return true;
  }
  return false;
}
