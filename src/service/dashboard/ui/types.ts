/** What the daemon sends the page (the stream's messages and the API's deployment detail), as the page reads it. */
import type { PositionExits } from './position-charts.js';

export interface Feed {
  state: string;
  connected: boolean;
  lastFrameAgeMs: number | null;
  framesPerSec: number;
  frames: number;
  gaps: number;
  reconnects: number;
  rejected: number;
}
export interface Position {
  strategyId: string;
  mint: string;
  costLamports: string;
  valueLamports: string | null;
  unrealisedLamports: string | null;
  realisedLamports: string;
  /** Exit levels the engine holds (exact decimal prices, SOL per token); null without rules. */
  exits?: PositionExits | null;
}
export interface Pending {
  id: string;
  strategyId: string;
  side: string;
  mint: string;
  amountIn: string;
  state: string;
  createdAt: number;
}
export interface Risk {
  dailyLossLamports: string;
  dailyLossLimitLamports: string | null;
  dailyHalted: boolean;
  killed: boolean;
  killReason: string | null;
  exposureLamports: string;
  maxExposureLamports: string | null;
}
export interface Detail {
  name: string;
  mode: string;
  state: string;
  cause: { code: string; message: string } | null;
  ready: boolean;
  equityLamports: string | null;
  feed: Feed | null;
  positions: Position[];
  pending: Pending[];
  risk: Risk | null;
  summary: { fills: number; realisedLamports: string; unrealisedLamports: string } | null;
}
export interface Decision {
  kind: string;
  at: number;
  strategyId: string;
  side?: string;
  mint?: string;
  amountIn?: string;
  solAmount?: string;
  tokenAmount?: string;
  code?: string;
  reason?: string;
  outcome?: string;
  intentId?: string;
  /** `manual` entries: the action, who asked and why. */
  action?: string;
  by?: string;
  why?: string;
  target?: { mint?: string; intentId?: string };
}
export interface DecisionMsg {
  seq: number;
  deployment: string;
  entry: Decision;
}
export interface EventMsg {
  seq: number;
  deployment: string;
  event: { type: string; at: number; state?: string; equityLamports?: string; level?: string; code?: string; message?: string };
}
export interface Snapshot {
  boot: string;
  reset: boolean;
  deployments: Detail[];
  decisions: DecisionMsg[];
  equity: Record<string, [number, string][]>;
}
