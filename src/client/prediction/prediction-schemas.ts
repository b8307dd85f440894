/**
 * Shapes of the prediction-markets API as far as the spec shows them (events, markets, combo
 * groups, crypto up/down windows, legs). Enumerations the spec leaves open stay strings; date-time
 * formats are not shown, so they stay strings. Undocumented fields pass through.
 */
import { z } from 'zod';

export const outcomeSchema = z.looseObject({ label: z.string(), price: z.number() });

export const legSchema = z.looseObject({
  label: z.string(),
  /** `yes` among its values; others not shown. */
  side: z.string(),
  eventDate: z.string().optional(),
  exclusionGroup: z.unknown().optional(),
  lifecycleStatus: z.string().optional(),
  officialLegId: z.unknown().optional(),
  positionId: z.unknown().optional(),
  sport: z.string().optional(),
  underlyingMarketId: z.unknown().optional(),
  underlyingTitle: z.string().optional(),
});

export const predictionMarketSchema = z.looseObject({
  exchange: z.string(),
  hasDepth: z.boolean(),
  id: z.union([z.string(), z.number()]),
  isTradable: z.boolean(),
  marketKind: z.string(),
  outcomes: z.array(outcomeSchema),
  /** `orderbook` among its values; others not shown. */
  pricingMode: z.string(),
  slug: z.string(),
  status: z.string(),
  title: z.string(),
  volume: z.number(),
  clobTokenIds: z.array(z.string()).optional(),
  legCount: z.number().int().optional(),
  legs: z.array(legSchema).optional(),
  openInterest: z.number().optional(),
  outcomeIndex: z.number().int().optional(),
  tags: z.array(z.unknown()).optional(),
  tradeCount24h: z.number().int().optional(),
});

export const comboSelectionSchema = z.looseObject({
  label: z.string(),
  outcomeIndex: z.number().int(),
  price: z.number(),
  selectable: z.boolean(),
  tokenId: z.union([z.string(), z.number()]).optional(),
});

export const comboGroupSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  label: z.string().optional(),
  section: z.string().optional(),
  period: z.string().optional(),
  lines: z
    .array(
      z.looseObject({
        marketId: z.union([z.string(), z.number()]).optional(),
        marketType: z.string().optional(),
        status: z.string().optional(),
        title: z.string().optional(),
        line: z.number().optional(),
        selections: z.array(comboSelectionSchema).default([]),
      }),
    )
    .default([]),
});

export const cryptoUpDownSchema = z.looseObject({
  asset: z.string().optional(),
  interval: z.string().optional(),
  /** `upcoming` among its values; others not shown. */
  phase: z.string().optional(),
  symbol: z.string().optional(),
  variant: z.string().optional(),
  finalPrice: z.number().nullable().optional(),
  priceToBeat: z.number().nullable().optional(),
  resolutionSource: z.string().optional(),
  result: z.unknown().optional(),
  seriesSlug: z.string().optional(),
  seriesTitle: z.string().optional(),
  windowStart: z.unknown().optional(),
  windowEnd: z.unknown().optional(),
});

export const predictionEventSchema = z.looseObject({
  exchange: z.string(),
  id: z.union([z.string(), z.number()]),
  marketCount: z.number().int().optional(),
  /** `binary` or `combo` (others not shown). */
  marketKind: z.string().optional(),
  title: z.string().optional(),
  category: z.unknown().optional(),
  comboEnabled: z.boolean().optional(),
  comboGroups: z.array(comboGroupSchema).optional(),
  cryptoUpDown: cryptoUpDownSchema.nullable().optional(),
  markets: z.array(predictionMarketSchema).optional(),
  negRisk: z.boolean().optional(),
  openInterest: z.number().optional(),
  volume: z.number().optional(),
  volume24h: z.number().optional(),
});

export const eventsPageSchema = z.looseObject({
  count: z.number().int(),
  data: z.array(predictionEventSchema),
  hasMore: z.boolean(),
  cursor: z.string().nullable().optional(),
});

export type PredictionMarket = z.infer<typeof predictionMarketSchema>;
export type PredictionEvent = z.infer<typeof predictionEventSchema>;
export type ComboGroup = z.infer<typeof comboGroupSchema>;
export type CryptoUpDown = z.infer<typeof cryptoUpDownSchema>;
export type MarketLeg = z.infer<typeof legSchema>;
export type EventsPage = z.infer<typeof eventsPageSchema>;
