/**
 * A JSON-RPC error a method handler raises; the server turns it into an `error` member with HTTP
 * 200, as a Solana node does. Codes follow the Solana node where it has one.
 */
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
export const RPC_PARSE_ERROR = -32700;

export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/** Throws -32602 naming the parameter. */
export function invalidParams(message: string): never {
  throw new RpcError(RPC_INVALID_PARAMS, `Invalid params: ${message}`);
}
