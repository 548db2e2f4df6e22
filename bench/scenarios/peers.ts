/** The peers step: anonymous sign-in of @colyseus/auth and better-auth against our logins. */
import { errText, log, PEERS_DIR, type Context } from "../lib/context";
import { isAborting, onCleanUp } from "../lib/lifecycle";
import { measureHttp } from "../lib/measure";
import { ensurePeersInstalled, PEERS, startPeer } from "../lib/peers";
import { rowCells, section, simpleTable, skippedSection, targetText, type Row } from "../lib/report";

/** Against the peers' anonymous sign-in rate, same run. */
const PEER_TARGETS = { returningVsColyseus: 1.0, newVsColyseus: 0.7, vsBetterAuth: 4 } as const;

/** Our logins (this run's embedded service) against the peers' anonymous sign-ins, each in its own process. */
export async function peersStep(ctx: Context): Promise<string> {
  const title = "Peers: anonymous sign-in of @colyseus/auth and better-auth against our logins";
  try {
    ensurePeersInstalled(PEERS_DIR, log);
  } catch (err) {
    return skippedSection(title, errText(err));
  }
  const peers = new Map<string, Row>();
  for (const peer of PEERS) {
    if (isAborting()) break;
    const started = await startPeer(PEERS_DIR, peer);
    onCleanUp(async () => started.cleanup());
    const row = await measureHttp(ctx, peer.label, started.child, { baseUrl: started.url, path: peer.path, method: "POST", body: peer.body, headers: peer.headers });
    peers.set(peer.id, row);
    await started.child.stop();
  }
  const embedded = ctx.tables.find((t) => t.title.startsWith("Service: embedded"));
  const ours = (id: string) => embedded?.rows.find((r) => r.id === id);
  const returning = ours("returning-login");
  const fresh = ours("new-login-normal") ?? ours("new-login");
  const measured = [returning, ours("new-login"), ours("new-login-normal"), ...peers.values()].filter((r): r is Row => r !== undefined);
  const table = simpleTable(["Sign-in", "rate", "p50 ms", "p99 ms", "CPU ms/req", "RSS MiB", "errors"], measured.map(rowCells));

  const colyseus = peers.get("colyseus-auth");
  const better = peers.get("better-auth");
  const compare = (a: Row | undefined, b: Row | undefined, min: number, what: string): string[] => {
    if (!a || !b) return [what, "–", "–", "not measured in this run"];
    const rate = a.m.reqPerSec / b.m.reqPerSec;
    const cpu = (b.cpuMsPerReq ?? NaN) / (a.cpuMsPerReq ?? NaN);
    return [what, `${rate.toFixed(2)}×`, `${cpu.toFixed(2)}×`, targetText({ ratio: rate, min, against: "rate" })];
  };
  const ratios = simpleTable(
    ["Comparison", "rate ratio", "CPU-per-request ratio", "target"],
    [
      compare(returning, colyseus, PEER_TARGETS.returningVsColyseus, "returning-player login ÷ @colyseus/auth"),
      compare(fresh, colyseus, PEER_TARGETS.newVsColyseus, `new-player login (${fresh?.id === "new-login-normal" ? "NORMAL" : "FULL"}) ÷ @colyseus/auth`),
      compare(returning, better, PEER_TARGETS.vsBetterAuth, "returning-player login ÷ better-auth"),
      compare(fresh, better, PEER_TARGETS.vsBetterAuth, "new-player login ÷ better-auth"),
    ],
  );
  return section(
    title,
    [
      "Each peer runs alone in its own process (bench/peers, its own lockfile), loaded like our routes (same connections and duration). Ours come from this run's embedded service table above. Our login does more: a platform round trip to the simulator, two tokens, the cache writes and a user row; the peers sign a token for a user kept in memory (@colyseus/auth) or insert a user and a session into SQLite (better-auth).",
    ],
    { markdown: `${table.markdown}\n\n${ratios.markdown}`, text: `${table.text}\n\n${ratios.text}` },
  );
}
