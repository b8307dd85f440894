/**
 * What goes on the wire for a request: the path below the base URL with its query (undefined and
 * null left out, arrays as comma lists), the key where the service wants it (a header or a query
 * parameter), the extra headers, and the JSON body (pre-serialised text wins over `body`).
 *
 * State: none; the base path, auth and headers are fixed per client.
 */
import type { HttpAuth, HttpRequest } from './http-client.js';

export interface RequestBuilderOptions {
  /** Path prefix of the base URL, without a trailing slash. */
  readonly prefix: string;
  readonly auth: HttpAuth | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
}

export interface RequestBuilder {
  /** The path and query string to request. */
  readonly path: (req: HttpRequest) => string;
  /** The headers and the serialised body (JSON.stringify may throw, e.g. on a bigint: the caller's error). */
  readonly content: (req: HttpRequest) => { headers: Record<string, string>; body: string | undefined };
}

export function createRequestBuilder(o: RequestBuilderOptions): RequestBuilder {
  const { prefix, auth } = o;
  return {
    path(req) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(req.query ?? {})) {
        if (v === undefined || v === null) continue;
        params.append(k, Array.isArray(v) ? v.join(',') : String(v));
      }
      if (auth?.kind === 'query') params.append(auth.name, auth.value);
      const qs = params.toString();
      return (prefix + req.path || '/') + (qs ? `?${qs}` : '');
    },
    content(req) {
      const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
      if (auth?.kind === 'header') headers[auth.name] = auth.value;
      let body: string | undefined;
      if (req.bodyText !== undefined) body = req.bodyText;
      else if (req.body !== undefined) body = JSON.stringify(req.body);
      if (body !== undefined) headers['content-type'] = 'application/json';
      return { headers, body };
    },
  };
}
