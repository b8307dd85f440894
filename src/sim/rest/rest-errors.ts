/** Errors a REST handler raises; the app turns them into the spec's error bodies. */
import { z } from 'zod';

export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RestError';
  }
}

export function badParam(field: string, fix: string): RestError {
  return new RestError(400, 'INVALID_PARAMETER', `${field}: ${fix}`);
}

export function notFound(what: string): RestError {
  return new RestError(404, 'NOT_FOUND', `${what} not found`);
}

/** Parses a query object with a zod schema, answering 400 that names the first bad field. */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, string>): z.output<S> {
  const r = schema.safeParse(query);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue?.path.join('.') || 'query';
  throw badParam(field, issue?.message ?? 'invalid value');
}

/** Query helpers: numbers and booleans arrive as strings. */
export const q = {
  int: (min: number, max: number) => z.coerce.number().int().min(min).max(max),
  num: () => z.coerce.number(),
  bool: () => z.enum(['true', 'false']).transform((v) => v === 'true'),
  list: () =>
    z.string().transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    ),
};
