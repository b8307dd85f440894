/**
 * Readers for the error bodies of each interface. A reader pulls the service's own code and
 * message out of a parsed body; the HTTP client puts them into the typed error's context.
 */

/** What an error body said, as far as the interface documents it. */
export interface ErrorBodyInfo {
  /** The service's own error code (`SERVER_ERROR`, a prediction `errorCode`, ...). */
  readonly apiCode?: string;
  /** The service's own message. */
  readonly apiMessage?: string;
  /** Numeric code inside the body (the prediction API's `code`). */
  readonly bodyCode?: number;
}

/** Extracts what an error body says; returns `undefined` when the body is not of this shape. */
export type ErrorBodyReader = (body: unknown) => ErrorBodyInfo | undefined;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Token data API: `{error: {code, message}}`. Falls back to `{error: "text"}` and `{message}`. */
export const readDataApiError: ErrorBodyReader = (body) => {
  if (!isRecord(body)) return undefined;
  const err = body['error'];
  if (isRecord(err)) return compact({ apiCode: str(err['code']), apiMessage: str(err['message']) });
  if (typeof err === 'string') return compact({ apiMessage: err });
  if (typeof body['message'] === 'string') return compact({ apiMessage: body['message'] });
  return undefined;
};

/** Prediction API: `{code: integer, error: string, errorCode: string}`. */
export const readPredictionError: ErrorBodyReader = (body) => {
  if (!isRecord(body)) return undefined;
  const code = body['code'];
  const info = compact({
    apiCode: str(body['errorCode']),
    apiMessage: str(body['error']) ?? str(body['message']),
    bodyCode: typeof code === 'number' && Number.isInteger(code) ? code : undefined,
  });
  return Object.keys(info).length > 0 ? info : readDataApiError(body);
};

function compact(info: { apiCode?: string | undefined; apiMessage?: string | undefined; bodyCode?: number | undefined }): ErrorBodyInfo {
  const out: { apiCode?: string; apiMessage?: string; bodyCode?: number } = {};
  if (info.apiCode !== undefined) out.apiCode = info.apiCode;
  if (info.apiMessage !== undefined) out.apiMessage = info.apiMessage;
  if (info.bodyCode !== undefined) out.bodyCode = info.bodyCode;
  return out;
}
