/**
 * The simulator's memory for the growth surfaces (docs/growth.md), one per simulator: the risk ranks
 * tests and the playground choose per player (`POST /__simulator/risk-rank`), and how often WeChat's
 * getuserriskrank was asked for each. Kept beside the simulator's social state (a WeakMap on it), so
 * two simulators in one process never share it.
 */
import type { SocialSimState } from "./social-state";

export interface SimActivity {
  appId: string;
  /** The only sharer of a private message, or null. */
  openid: string | null;
  expiresAtMs: number;
  state: 0 | 1 | null;
  parameters: Record<string, string>;
  updates: number;
}

/** A player's customer-service conversation as WeChat holds it: when they last wrote, replies left to them. */
export interface SimSupportWindow {
  lastInMs: number;
  repliesLeft: number;
  /** Douyin's windows are keyed by conversation: whose it is. */
  openid?: string;
}

export interface SimSupportReply {
  appId: string;
  openid: string;
  msgtype: string;
  content: string;
  atMs: number;
}

export class GrowthSimState {
  readonly activities = new Map<string, SimActivity>();
  /** Keyed "<appId>\0<openid>" (Douyin: "<appId>\0<conversation_id>"): set when the simulator pushes a player's message. */
  readonly supportWindows = new Map<string, SimSupportWindow>();
  /** Every customer-service message custom/send accepted, oldest first. */
  readonly supportReplies: SimSupportReply[] = [];

  private readonly ranks = new Map<string, number | { errcode: number; errmsg: string }>();
  private readonly asked = new Map<string, number>();

  private static key(platform: string, openid: string): string {
    return `${platform}\0${openid}`;
  }

  chooseRank(platform: string, openid: string, rank: number | { errcode: number; errmsg: string }): void {
    this.ranks.set(GrowthSimState.key(platform, openid), rank);
  }

  /** The chosen rank (0 when none was chosen), counting the question. */
  askRank(platform: string, openid: string): number | { errcode: number; errmsg: string } {
    const key = GrowthSimState.key(platform, openid);
    this.asked.set(key, (this.asked.get(key) ?? 0) + 1);
    return this.chosenRank(platform, openid);
  }

  chosenRank(platform: string, openid: string): number | { errcode: number; errmsg: string } {
    return this.ranks.get(GrowthSimState.key(platform, openid)) ?? 0;
  }

  rankCalls(platform: string, openid: string): number {
    return this.asked.get(GrowthSimState.key(platform, openid)) ?? 0;
  }
}

const states = new WeakMap<SocialSimState, GrowthSimState>();

export function growthStateOf(social: SocialSimState): GrowthSimState {
  let state = states.get(social);
  if (!state) states.set(social, (state = new GrowthSimState()));
  return state;
}
