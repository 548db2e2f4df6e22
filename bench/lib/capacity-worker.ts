/**
 * One load-generator process of the capacity ramp (bench/lib/capacity.ts): on each "add" message
 * it logs in the given distinct players, then joins each to the lobby and keeps it connected,
 * and answers with the join latencies. Several run side by side so one generator's event loop
 * does not become the bottleneck. Exits when its parent goes away.
 */
import { Client, type Room } from "@colyseus/sdk";

/** "login": log these players in and keep their tokens; "join": join every kept token, then forget them. */
type Message =
  | { cmd: "login"; baseUrl: string; players: string[]; concurrency: number }
  | { cmd: "join"; baseUrl: string; concurrency: number };

const rooms: Room[] = [];
let tokens: string[] = [];

async function login(baseUrl: string, code: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/minigame/wechat/login?jsCode=${encodeURIComponent(code)}`, { signal: AbortSignal.timeout(30_000) });
  const body = (await res.json()) as { success?: boolean; data?: { token?: string } };
  if (!body.success || !body.data?.token) throw new Error(`login ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return body.data.token;
}

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

let errors = 0;
let firstError: string | undefined;
const fail = (err: unknown) => {
  errors++;
  firstError ??= err instanceof Error ? err.message : String(err);
};

async function logIn(msg: Extract<Message, { cmd: "login" }>) {
  errors = 0;
  firstError = undefined;
  await eachLimited(msg.players, msg.concurrency, async (code) => {
    try {
      tokens.push(await login(msg.baseUrl, code));
    } catch (err) {
      fail(err);
    }
  });
  return { loggedIn: tokens.length, errors, firstError };
}

async function joinAll(msg: Extract<Message, { cmd: "join" }>) {
  const latencies: number[] = [];
  const client = new Client(msg.baseUrl);
  const joinStarted = performance.now();
  const joining = tokens;
  tokens = [];
  await eachLimited(joining, msg.concurrency, async (accessToken) => {
    const t0 = performance.now();
    try {
      const room = await Promise.race([
        client.joinOrCreate("lobby", { accessToken }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("join took over 15 s")), 15_000)),
      ]);
      latencies.push(performance.now() - t0);
      rooms.push(room);
    } catch (err) {
      fail(err);
    }
  });
  return { latencies, errors, firstError, joinSeconds: (performance.now() - joinStarted) / 1000, connected: rooms.length };
}

process.on("message", (msg: Message) => {
  if (msg?.cmd === "login") void logIn(msg).then((result) => process.send?.(result));
  if (msg?.cmd === "join") void joinAll(msg).then((result) => process.send?.(result));
});
process.on("disconnect", () => process.exit(0));
