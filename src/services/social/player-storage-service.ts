import { AppError, invalidRequest, type FieldProblem } from "../../core/errors";
import type { Logger } from "../../logging/logger";
import type { InteractiveEntry, PlayerSignedCall, SocialClient, StorageEntry, StorageLimits } from "../../platforms/social-port";
import type { AppTokens, KeptKeys, SocialClients } from "./social-ports";
import { interactiveDataProblems, storageRemovalProblems, storageWriteProblems } from "./storage-limits";

/** One player's result at the end of a match. */
export interface MatchResult {
  userId: string;
  /** The app of the player's session (`client.auth.app` in a room). */
  app: string;
  /** Ranking scores by storage key, written as the platform's ranking value (`{"wxgame": {score, update_time}}`). */
  scores?: Record<string, number>;
  /** Other storage entries, as given. */
  kvList?: StorageEntry[];
  /** WeChat interactive data. */
  interactive?: InteractiveEntry[];
}

export type RecordOutcome = { userId: string; recorded: true } | { userId: string; recorded: false; code: string };

/** A signed call's parts, ready once the platform's limits passed. */
interface Prepared {
  client: SocialClient;
  /** Runs the call with the app's token and the player's openid and kept key. */
  run<T>(call: (signed: PlayerSignedCall) => Promise<T>): Promise<T>;
}

/**
 * The player's hosted storage on their platform (what the friend ranking in the game's open-data
 * context reads) and WeChat's interactive data, written by the server so a score comes from the match,
 * not from a client that could forge it. Used by the HTTP edge (the player's own writes) and by rooms
 * (`recordMatchResults`). The platform is the one of the player's latest login on that app (the kept
 * session key says which); each write is checked against that platform's limits (400, no platform
 * call), then signed with that key and sent with the app's access token.
 */
export class PlayerStorageService {
  constructor(
    private readonly clients: SocialClients,
    private readonly keys: KeptKeys,
    private readonly tokens: AppTokens,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async write(userId: string, app: string, kvList: StorageEntry[]): Promise<void> {
    await this.writeBuilt(userId, app, () => kvList);
  }

  /** A write whose entries depend on the platform (a ranking value's wrapper), built once the platform is known. */
  private async writeBuilt(userId: string, app: string, build: (limits: StorageLimits) => StorageEntry[]): Promise<void> {
    let kvList: StorageEntry[] = [];
    const { client, run } = await this.prepare(userId, app, (c) => storageWriteProblems((kvList = build(c.storageLimits)), c.storageLimits));
    await run((signed) => client.setUserStorage({ ...signed, kvList }));
  }

  async remove(userId: string, app: string, keys: string[]): Promise<void> {
    const { client, run } = await this.prepare(userId, app, (c) => storageRemovalProblems(keys, c.storageLimits));
    const unique = [...new Set(keys)];
    await run((signed) => client.removeUserStorage({ ...signed, keys: unique }));
  }

  async writeInteractiveData(userId: string, app: string, kvList: InteractiveEntry[]): Promise<void> {
    const { client, run } = await this.prepare(userId, app, (c) =>
      c.interactiveDataLimits && c.setUserInteractiveData ? interactiveDataProblems(kvList, c.interactiveDataLimits) : null,
    );
    const setData = client.setUserInteractiveData!.bind(client);
    await run((signed) => setData({ ...signed, kvList }));
  }

  /**
   * A room's end of match: every player's entries, each on their own app, in parallel. One player's
   * failure (a stale key, a platform outage) is reported in their outcome and logged, and never stops
   * the others' results; the room decides what to tell the players.
   */
  async recordMatchResults(results: readonly MatchResult[]): Promise<RecordOutcome[]> {
    return Promise.all(
      results.map(async ({ userId, app, scores = {}, kvList = [], interactive }): Promise<RecordOutcome> => {
        try {
          const updateTime = Math.floor(this.now() / 1000);
          const ranking = (wrapper = "wxgame") => Object.entries(scores).map(([key, score]) => ({ key, value: JSON.stringify({ [wrapper]: { score, update_time: updateTime } }) }));
          if (kvList.length > 0 || Object.keys(scores).length > 0) await this.writeBuilt(userId, app, (limits) => [...ranking(limits.rankingWrapper), ...kvList]);
          if (interactive?.length) await this.writeInteractiveData(userId, app, interactive);
          return { userId, recorded: true };
        } catch (err) {
          const code = err instanceof AppError ? err.code : "internal_error";
          this.logger.warn({ event: "match_result_not_recorded", userId, app, code, err: err instanceof AppError ? undefined : err }, "a player's match result was not recorded");
          return { userId, recorded: false, code };
        }
      }),
    );
  }

  /**
   * The kept key (a cache read: the platform is the key's), the platform's limits, and only then a
   * runner for the platform call. `limits` answers null when the platform lacks the feature.
   */
  private async prepare(userId: string, app: string, limits: (client: SocialClient) => FieldProblem[] | null): Promise<Prepared> {
    const kept = await this.keys.read(userId, app);
    // The platform checks the signature against the player's current key: without one, nothing can be signed.
    if (!kept?.sessionKey || !kept.openid) throw new AppError("session_key_missing");
    const found = this.clients.find(kept.platform, app);
    const problems = found ? limits(found.client) : null;
    if (!found || !problems) throw new AppError("route_not_found", { message: `${kept.platform} has no such player storage`, data: { platform: kept.platform } });
    if (problems.length > 0) throw invalidRequest(problems);
    const { openid, sessionKey } = kept;
    return {
      client: found.client,
      run: (call) => this.tokens.withPlatformToken(kept.platform, app, (accessToken) => call({ accessToken, openid, sessionKey })),
    };
  }
}
