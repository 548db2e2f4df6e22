/**
 * Douyin's feed direct play (推荐流直玩, docs/growth.md): Douyin asks which scenes a player has ready
 * (offline income, stamina restored, an event's drop) and shows a card for one. The server answers
 * from what the game recorded, never from what the call says; only scenes really ready are named
 * (Douyin withdraws the ability from games whose cards promise what the game does not give).
 *
 * Where the scenes come from is the game's: `FeedSceneSource` is the hook a studio fills. The
 * default reads the player's cloud-save object `<collection>/scenes` (savedFeedScenes below), which
 * the game writes as it goes — from its rooms or server code, or from the client where the studio
 * leaves the collection writable by players (then the card is the player's own claim, as with
 * Douyin's client-side tt.storeFeedData).
 */
import type { AnalyticsRecorder } from "../../core/ports/analytics-store";
import { FEED_SCENES, type FeedSceneAnswer, type FeedSceneNumber } from "../../platforms/douyin/douyin-feed";
import { SERVER_EVENTS } from "../analytics/event-names";
import type { SaveService } from "../saves/save-service";

export interface FeedSceneSource {
  /** The player's scenes ready at `now` (ms), each with the content ids Douyin's console approved. */
  readyScenes(app: string, userId: string, now: number): Promise<FeedSceneAnswer[]>;
}

export interface DouyinFeedDeps {
  /** The player of this app holding the openid, if any. */
  userIdOf(app: string, openid: string): Promise<string | undefined>;
  source: FeedSceneSource;
  analytics: AnalyticsRecorder;
  /** How long the source may take: Douyin waits 300 ms in all, and a late answer is no card. */
  deadlineMs: number;
  now?: () => number;
}

export type FeedAnswer = { scenes: FeedSceneAnswer[]; player: "known" | "unknown" | "late" };

export class DouyinFeed {
  private readonly now: () => number;

  constructor(private readonly deps: DouyinFeedDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The scenes to answer Douyin with for this app's player (none for a player we do not know). */
  async answer(app: string, openid: string): Promise<FeedAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), this.deps.deadlineMs);
    });
    try {
      const found = await Promise.race([this.lookUp(app, openid), late]);
      if (found === "late") return { scenes: [], player: "late" };
      if (!found) return { scenes: [], player: "unknown" };
      const scenes = found.scenes;
      this.deps.analytics.record({ name: SERVER_EVENTS.feedPull, app, userId: found.userId, platform: "douyin", props: { ready: scenes.length, scenes: scenes.map((s) => s.scene).join(",") } });
      return { scenes, player: "known" };
    } finally {
      clearTimeout(timer);
    }
  }

  private async lookUp(app: string, openid: string): Promise<{ userId: string; scenes: FeedSceneAnswer[] } | undefined> {
    const userId = await this.deps.userIdOf(app, openid);
    if (!userId) return undefined;
    return { userId, scenes: await this.deps.source.readyScenes(app, userId, this.now()) };
  }
}

/** What the game writes into `<collection>/scenes` (docs/growth.md). */
export const FEED_SAVE_KEY = "scenes";
const MAX_CONTENT_IDS = 10;
const MAX_CONTENT_ID_LENGTH = 64;
/** Douyin hands `extra` to the game at launch (`feed_game_extra`); 100 characters is a publisher's limit, unconfirmed for Douyin. */
const MAX_EXTRA_LENGTH = 100;

/**
 * The default source: the player's save `<collection>/scenes`, `{"scenes": [{"scene": 1|2|3,
 * "contentIds": ["…"], "readyAt"?: ISO, "until"?: ISO, "extra"?: "…"}]}`. A scene is ready from
 * `readyAt` (at once when absent) until `until`; an entry that does not fit is left out, never guessed.
 */
export function savedFeedScenes(saves: Pick<SaveService, "find">, collection: string): FeedSceneSource {
  return {
    readyScenes: async (app, userId, now) => {
      const saved = await saves.find(app, userId, { collection, key: FEED_SAVE_KEY });
      return saved ? readySavedScenes(saved.value, now) : [];
    },
  };
}

export function readySavedScenes(value: Record<string, unknown>, now: number): FeedSceneAnswer[] {
  const entries = Array.isArray(value.scenes) ? value.scenes : [];
  const ready = new Map<FeedSceneNumber, FeedSceneAnswer>();
  for (const entry of entries) {
    if (typeof entry !== "object" || entry === null) continue;
    const e = entry as Record<string, unknown>;
    const scene = e.scene as FeedSceneNumber;
    if (!(Object.values(FEED_SCENES) as number[]).includes(scene as number) || ready.has(scene)) continue;
    const contentIds = Array.isArray(e.contentIds) ? e.contentIds : [];
    if (contentIds.length === 0 || contentIds.length > MAX_CONTENT_IDS) continue;
    if (!contentIds.every((id) => typeof id === "string" && id.length > 0 && id.length <= MAX_CONTENT_ID_LENGTH)) continue;
    const from = e.readyAt === undefined ? -Infinity : Date.parse(String(e.readyAt));
    const until = e.until === undefined ? Infinity : Date.parse(String(e.until));
    if (Number.isNaN(from) || Number.isNaN(until) || now < from || now >= until) continue;
    if (e.extra !== undefined && (typeof e.extra !== "string" || e.extra.length > MAX_EXTRA_LENGTH)) continue;
    ready.set(scene, { scene, contentIds: contentIds as string[], ...(e.extra ? { extra: e.extra as string } : {}) });
  }
  return [...ready.values()].sort((a, b) => a.scene - b.scene);
}
