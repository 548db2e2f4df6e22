/**
 * A two-team live game, the streamer's side: viewers join red or blue by commenting "1" / "红" or
 * "2" / "蓝", gifts give their team points (1 point per fen of value), likes give one point per tap,
 * and when the round ends the team with more points wins. Everything a viewer does arrives as a
 * message of the `douyin_live` room the server binds to the streamer's live room; each gift once.
 */
import { createGameClient, webRuntime, type LiveGift, type LiveRoundEnded, type LiveSession } from "../../client/src/index";

export type Team = "red" | "blue";

export interface RoundOutcome {
  roundId: number;
  points: Record<Team, number>;
  winner: Team | "draw";
  /** Each team's viewers, by sec_openid. */
  members: Record<Team, string[]>;
  /** The server's gift board for the round (per viewer, from its ledger). */
  board: LiveRoundEnded["totals"];
  /** msg_ids of the gifts the game counted (each once: the room drops repeats). */
  gifts: string[];
}

const TEAM_OF: Record<string, Team> = { "1": "red", 红: "red", red: "red", "2": "blue", 蓝: "blue", blue: "blue" };

/** The rules, apart from the network: easy to read, easy to test. */
export class TeamScore {
  readonly points: Record<Team, number> = { red: 0, blue: 0 };
  private readonly teamOf = new Map<string, Team>();
  readonly gifts: string[] = [];

  /** A comment naming a team joins it; a viewer stays in the team they joined first. */
  comment(viewer: string, content: string): void {
    const team = TEAM_OF[content.trim().toLowerCase()];
    if (team && !this.teamOf.has(viewer)) this.teamOf.set(viewer, team);
  }

  /** A gift counts for the giver's team; a giver without a team joins the smaller one. */
  gift(g: Pick<LiveGift, "msgId" | "secOpenid" | "giftValue">): void {
    this.gifts.push(g.msgId);
    this.points[this.join(g.secOpenid)] += g.giftValue;
  }

  like(viewer: string, taps: number): void {
    const team = this.teamOf.get(viewer);
    if (team) this.points[team] += taps;
  }

  winner(): Team | "draw" {
    return this.points.red === this.points.blue ? "draw" : this.points.red > this.points.blue ? "red" : "blue";
  }

  members(): Record<Team, string[]> {
    const out: Record<Team, string[]> = { red: [], blue: [] };
    for (const [viewer, team] of this.teamOf) out[team].push(viewer);
    return out;
  }

  private join(viewer: string): Team {
    let team = this.teamOf.get(viewer);
    if (!team) {
      const m = this.members();
      team = m.red.length <= m.blue.length ? "red" : "blue";
      this.teamOf.set(viewer, team);
    }
    return team;
  }
}

/** Douyin's round results: 1 win, 2 lose, 3 draw, per team (the group ids of the studio's gift settings). */
export function groupResults(winner: Team | "draw"): Array<{ groupId: Team; result: 1 | 2 | 3 }> {
  if (winner === "draw") return [{ groupId: "red", result: 3 }, { groupId: "blue", result: 3 }];
  return [{ groupId: winner, result: 1 }, { groupId: winner === "red" ? "blue" : "red", result: 2 }];
}

export interface PlayOptions {
  server: string;
  /** The launch token 直播伴侣 gave the game (against the simulator: POST /__simulator/douyin-live/streamer). */
  token: string;
  /** Runs while the round is open (the example's simulated viewers); the round ends when it settles. */
  during: (live: LiveSession) => Promise<void>;
  log?: (line: string) => void;
}

/** Launches from the token, plays one round, ends it with the winner, and leaves the room. */
export async function playOneRound({ server, token, during, log = () => undefined }: PlayOptions): Promise<RoundOutcome> {
  const client = createGameClient({ server, runtime: webRuntime({ platform: "douyin" }), reconnection: false });
  const live = await client.douyinLive.start(token);
  log(`live room ${live.liveRoomId} of ${live.nickname}: the game's room is ${live.room.roomId}`);
  const score = new TeamScore();
  live.onComment((c) => score.comment(c.secOpenid, c.content));
  live.onGift((g) => score.gift(g));
  live.onLike((l) => score.like(l.secOpenid, l.likeNum));
  try {
    const roundId = await live.startRound();
    log(`round ${roundId} started: comment 1 for red, 2 for blue`);
    await during(live);
    const winner = score.winner();
    const ended = await live.endRound(groupResults(winner));
    log(`round ${roundId} ended: red ${score.points.red}, blue ${score.points.blue} → ${winner}`);
    for (const t of ended.totals) log(`  ${t.nickname || t.secOpenid}: ${t.giftNum} gifts, ${(t.valueFen / 100).toFixed(2)} yuan`);
    return { roundId, points: { ...score.points }, winner, members: score.members(), board: ended.totals, gifts: [...score.gifts] };
  } finally {
    await live.room.leave().catch(() => undefined);
  }
}
