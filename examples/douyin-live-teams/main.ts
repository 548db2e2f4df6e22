/**
 * Runs the two-team game for one round against a server (default: the local one with its
 * simulator). With no token given, it asks the simulator for a streamer's launch token and, while
 * the round is open, has the simulator push viewers' comments, gifts and likes, as Douyin would.
 *
 *   npx tsx examples/douyin-live-teams/main.ts [--server http://127.0.0.1:2567] [--simulator http://127.0.0.1:3999]
 *     [--token <launch token>] [--seconds 20]
 * The push secrets registered with the simulator are the server's: DOUYIN_LIVE_SECRET_COMMENT, _GIFT, _LIKE.
 */
import { playOneRound } from "./team-game";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ""), process.argv[i + 1] ?? "");
const server = args.get("server") ?? "http://127.0.0.1:2567";
const simulator = args.get("simulator") ?? server;
const seconds = Number(args.get("seconds") ?? 20);

async function control(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${simulator}/__simulator/douyin-live/${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`the simulator answered ${res.status} to ${path}: is the server running with DOUYIN_LIVE_ENABLED=true?`);
  return res.json();
}

async function main(): Promise<void> {
  let token = args.get("token");
  let roomId = "";
  if (!token) {
    ({ token, roomId } = await control("streamer", { name: "teams-example" }));
    const secrets = { live_comment: process.env.DOUYIN_LIVE_SECRET_COMMENT, live_gift: process.env.DOUYIN_LIVE_SECRET_GIFT, live_like: process.env.DOUYIN_LIVE_SECRET_LIKE };
    await control("register", { url: `${server}/api/douyin-live/push`, secrets });
  }
  const outcome = await playOneRound({
    server,
    token: token!,
    log: (line) => console.log(line),
    during: async () => {
      if (!roomId) return void (await new Promise((r) => setTimeout(r, seconds * 1000)));
      const sent = await control("emit", { roomId, comments: 20, gifts: 10, likes: 30, ratePerSec: Math.max(1, Math.ceil(60 / seconds)), duplicateRate: 0.05 });
      console.log(`the simulator pushed ${sent.sent} messages (${sent.duplicates} of them again)`);
      await new Promise((r) => setTimeout(r, 1000));
    },
  });
  console.log(`winner: ${outcome.winner}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
