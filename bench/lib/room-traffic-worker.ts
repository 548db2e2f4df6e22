/**
 * One load-generator process of the room-traffic ramp (bench/lib/room-traffic.ts). It owns whole
 * rooms: the 10 players of a room are all here, so one clock times every delivery. Messages:
 * - "login": log these players in (distinct, fresh codes) and keep their tokens; without a baseUrl
 *   (a server without auth) their names stand in for the tokens;
 * - "open": put the kept tokens into rooms of `roomSize` (the first creates, the rest join by id),
 *   then every player of the room sends a chat-sized `say` at `hz`, each on its own phase;
 * - "measure": count deliveries (send → receipt, every receiver) for `seconds`, answer a histogram;
 * - "stop": every player leaves. Exits when its parent goes away.
 */
import { Client, type Room } from "@colyseus/sdk";

type Message =
  | { cmd: "login"; baseUrl?: string; players: string[]; concurrency: number }
  | { cmd: "open"; baseUrl: string; roomSize: number; hz: number; textLength: number; concurrency: number }
  | { cmd: "measure"; seconds: number }
  | { cmd: "stop" };

/** Latency histogram: 0.1 ms buckets up to 2 s, then one overflow bucket. */
const BUCKET_MS = 0.1;
const BUCKETS = 20_000;

let tokens: string[] = [];
const players: { room: Room; timer?: NodeJS.Timeout }[] = [];
let errors = 0;
let firstError: string | undefined;
let disconnected = 0;
let window: { histogram: Uint32Array; received: number; sent: number } | undefined;

const fail = (err: unknown) => {
  errors++;
  firstError ??= err instanceof Error ? err.message : String(err);
};

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function logIn(msg: Extract<Message, { cmd: "login" }>) {
  errors = 0;
  firstError = undefined;
  if (msg.baseUrl === undefined) {
    tokens.push(...msg.players);
    return { loggedIn: tokens.length, errors, firstError };
  }
  const baseUrl = msg.baseUrl;
  await eachLimited(msg.players, msg.concurrency, async (code) => {
    try {
      const res = await fetch(`${baseUrl}/api/minigame/wechat/login?jsCode=${encodeURIComponent(code)}`, { signal: AbortSignal.timeout(30_000) });
      const body = (await res.json()) as { success?: boolean; data?: { token?: string } };
      if (!body.success || !body.data?.token) throw new Error(`login ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      tokens.push(body.data.token);
    } catch (err) {
      fail(err);
    }
  });
  return { loggedIn: tokens.length, errors, firstError };
}

function listen(room: Room): void {
  room.onMessage("said", (m: { at?: number }) => {
    if (!window || typeof m?.at !== "number") return;
    const ms = performance.now() - m.at;
    window.histogram[Math.min(BUCKETS, Math.max(0, Math.floor(ms / BUCKET_MS)))]++;
    window.received++;
  });
  room.onMessage("error", (m: unknown) => fail(new Error(`room error: ${JSON.stringify(m).slice(0, 120)}`)));
  room.onLeave((code) => {
    if (code !== 1000) {
      disconnected++;
      firstError ??= `a player was disconnected (close code ${code})`;
    }
  });
}

function startTalking(room: Room, hz: number, text: string): NodeJS.Timeout {
  const period = 1000 / hz;
  const timer = setTimeout(() => {
    const interval = setInterval(() => {
      if (window) window.sent++;
      room.send("say", { text, at: performance.now() });
    }, period);
    entry.timer = interval;
  }, Math.random() * period);
  const entry: { room: Room; timer?: NodeJS.Timeout } = { room, timer };
  players.push(entry);
  return timer;
}

async function open(msg: Extract<Message, { cmd: "open" }>) {
  errors = 0;
  firstError = undefined;
  const client = new Client(msg.baseUrl);
  const text = "x".repeat(msg.textLength);
  const groups: string[][] = [];
  for (let i = 0; i < tokens.length; i += msg.roomSize) groups.push(tokens.slice(i, i + msg.roomSize));
  tokens = [];
  const joinLatencies: number[] = [];
  await eachLimited(groups, msg.concurrency, async (group) => {
    try {
      const t0 = performance.now();
      const first = await withTimeout(client.create("traffic", { accessToken: group[0] }), 15_000, "create");
      joinLatencies.push(performance.now() - t0);
      const rooms = [first];
      for (const accessToken of group.slice(1)) {
        const t1 = performance.now();
        rooms.push(await withTimeout(client.joinById(first.roomId, { accessToken }), 15_000, "join"));
        joinLatencies.push(performance.now() - t1);
      }
      for (const room of rooms) {
        listen(room);
        startTalking(room, msg.hz, text);
      }
    } catch (err) {
      fail(err);
    }
  });
  return { players: players.length, errors, firstError, joinLatencies };
}

async function measure(msg: Extract<Message, { cmd: "measure" }>) {
  errors = 0;
  firstError = undefined;
  disconnected = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  window = { histogram: new Uint32Array(BUCKETS + 1), received: 0, sent: 0 };
  await new Promise((r) => setTimeout(r, msg.seconds * 1000));
  const w = window;
  window = undefined;
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  return { histogram: Array.from(w.histogram), bucketMs: BUCKET_MS, received: w.received, sent: w.sent, seconds, cpuShare: (cpu.user + cpu.system) / 1e6 / seconds, errors, disconnected, firstError };
}

async function stop() {
  for (const p of players) clearTimeout(p.timer);
  await Promise.all(players.map((p) => withTimeout(p.room.leave(true), 5000, "leave").catch(() => undefined)));
  players.length = 0;
  return { stopped: true };
}

process.on("message", (msg: Message) => {
  const reply = (p: Promise<unknown>) => void p.then((result) => process.send?.(result));
  if (msg?.cmd === "login") reply(logIn(msg));
  if (msg?.cmd === "open") reply(open(msg));
  if (msg?.cmd === "measure") reply(measure(msg));
  if (msg?.cmd === "stop") reply(stop());
});
process.on("disconnect", () => process.exit(0));
