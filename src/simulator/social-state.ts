/**
 * What the simulated social APIs remember (platform-apis-3.md §4–§6), so tests can read back what the
 * server wrote: each player's hosted storage and interactive data, the subscribe-message grants the
 * player gave in the client (set through `POST /__simulator/subscribe-grant`, since the simulator has
 * no client), and every message delivered. Players are `(platform, openid)`: openids already differ per app.
 * (The game content check's own limit is in state.ts, with the other content-check limits.)
 */

export interface DeliveredMessage {
  templateId: string;
  /** The template data as the platform received it. */
  data: unknown;
  page?: string;
  /** WeChat's miniprogram_state and lang; absent on Douyin. */
  miniprogramState?: string;
  lang?: string;
  appId: string;
  /** Simulator clock, ms. */
  at: number;
}

/** Players remembered, like codes (codes.ts): the oldest dropped first. A leaf here: platform-simulator.ts imports this file. */
const MAX_REMEMBERED_PLAYERS = 200_000;

const player = (platform: string, openid: string) => `${platform}\0${openid}`;

export class SocialSimState {
  private readonly storage = new Map<string, Map<string, string>>();
  private readonly interactive = new Map<string, Map<string, number>>();
  private readonly grants = new Map<string, number>();
  private readonly messages = new Map<string, DeliveredMessage[]>();

  constructor(private readonly now: () => number) {}

  /** The player's storage, created on first write (a read of an unknown player is empty, not created). */
  storageOf(platform: string, openid: string): ReadonlyMap<string, string> {
    return this.storage.get(player(platform, openid)) ?? new Map();
  }

  /** Replaces the player's storage at once: the handlers check the whole list before changing anything. */
  replaceStorage(platform: string, openid: string, entries: Map<string, string>): void {
    remember(this.storage, player(platform, openid), entries);
  }

  interactiveOf(platform: string, openid: string): ReadonlyMap<string, number> {
    return this.interactive.get(player(platform, openid)) ?? new Map();
  }

  replaceInteractive(platform: string, openid: string, entries: Map<string, number>): void {
    remember(this.interactive, player(platform, openid), entries);
  }

  /** The player allowed `count` more sends of the template (each client prompt accepted is one). */
  grant(platform: string, openid: string, templateId: string, count: number): number {
    const key = `${player(platform, openid)}\0${templateId}`;
    const total = (this.grants.get(key) ?? 0) + count;
    remember(this.grants, key, total);
    return total;
  }

  /** Uses one grant; false when none is left (the platform's "not granted" answer). */
  useGrant(platform: string, openid: string, templateId: string): boolean {
    const key = `${player(platform, openid)}\0${templateId}`;
    const left = this.grants.get(key) ?? 0;
    if (left <= 0) return false;
    this.grants.set(key, left - 1);
    return true;
  }

  deliver(platform: string, openid: string, message: Omit<DeliveredMessage, "at">): void {
    const key = player(platform, openid);
    const list = this.messages.get(key) ?? [];
    list.push({ ...message, at: this.now() });
    remember(this.messages, key, list);
  }

  messagesOf(platform: string, openid: string): readonly DeliveredMessage[] {
    return this.messages.get(player(platform, openid)) ?? [];
  }
}

/** Sets a value as the most recent, dropping the oldest past the simulator's usual bound. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_REMEMBERED_PLAYERS) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
