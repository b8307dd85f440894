/**
 * Limits every frame must respect before anything else looks at it. Frame size is bounded by the
 * socket itself (`maxPayload`); nesting depth is checked here, right after `JSON.parse`, so no
 * later step (guards, dedup identity, strategies, logs) ever walks a payload thousands of levels
 * deep. The walk stops at the limit, so its recursion is bounded too.
 */

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
