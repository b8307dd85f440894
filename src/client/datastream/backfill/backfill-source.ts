/**
 * The narrow port through which the Datastream client reads REST trade and liquidity history
 * (`GET /trades/{token}[/{pool}][/{wallet}]`). The runtime adapts the data-api client to it; tests
 * use a real HTTP server or a small hand-written object.
 */

export interface HistoryQuery {
  readonly token: string;
  readonly pool?: string;
  readonly wallet?: string;
  readonly events: 'all' | 'liquidity';
  /** The opaque `nextCursor` of the previous page, sent back unchanged; or a numeric Unix-ms exclusive boundary for the first page. */
  readonly cursor?: string | number;
  readonly sortDirection: 'asc' | 'desc';
  /** 1 to 500. */
  readonly limit: number;
  /** `identity` for rooms with the `:enriched` suffix. */
  readonly enrich?: 'identity';
}

export interface HistoryPage {
  readonly rows: readonly unknown[];
  readonly hasNextPage: boolean;
  readonly nextCursor?: string | number;
}

export interface BackfillSource {
  fetchHistoryPage(q: HistoryQuery, signal?: AbortSignal): Promise<HistoryPage>;
}
