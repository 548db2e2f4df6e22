/**
 * One contract for the Cache port, run over every implementation: the services rely on these
 * semantics whichever cache is configured.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import Redis from "ioredis";
import type { Cache } from "../../src/core/ports/cache";
import { AppError } from "../../src/core/errors";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { createCache } from "../../src/adapters/cache/create-cache";
import { RedisCache } from "../../src/adapters/cache/redis-cache";
import { redisCluster, redisClusterSkipReason } from "../support/redis-cluster";
import { testRedisUrl, uniquePrefix } from "../support/services";
import { TcpProxy } from "../support/tcp-proxy";

interface Subject {
  cache: Cache;
  /** Lets time pass: a fake clock for memory, a real wait for Redis. */
  advance(ms: number): Promise<void>;
}

interface Implementation {
  name: string;
  make(): Promise<Subject>;
  cleanup(): Promise<void>;
  /** Source run in a child process to prove close() lets the process exit. */
  exitScript: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const root = path.resolve(__dirname, "../..");

const implementations: Implementation[] = [
  {
    name: "MemoryCache",
    async make() {
      let clock = 1_700_000_000_000;
      return {
        cache: new MemoryCache({ now: () => clock }),
        advance: async (ms) => {
          clock += ms;
        },
      };
    },
    async cleanup() {},
    exitScript: `
      const { MemoryCache } = require("./src/adapters/cache/memory-cache");
      const cache = new MemoryCache();
      cache.set("k", "v", 60).then(() => cache.close());`,
  },
];

if (testRedisUrl) {
  const url = testRedisUrl;
  const prefix = uniquePrefix("cache-contract");
  implementations.push({
    name: "RedisCache",
    async make() {
      return { cache: await createCache({ kind: "redis", url }, prefix), advance: sleep };
    },
    cleanup: () => deleteByPrefix(url, prefix),
    exitScript: `
      const { createCache } = require("./src/adapters/cache/create-cache");
      createCache({ kind: "redis", url: ${JSON.stringify(url)} }, ${JSON.stringify(prefix)})
        .then((cache) => cache.set("exit", "v", 5).then(() => cache.close()));`,
  });
}

if (!redisClusterSkipReason) {
  const prefix = uniquePrefix("cache-contract-cluster");
  let nodes: string[] = [];
  implementations.push({
    name: "RedisCache on a Redis Cluster",
    async make() {
      nodes = (await redisCluster()).urls;
      return { cache: await createCache({ kind: "redis-cluster", nodes }, prefix), advance: sleep };
    },
    // The cluster is the run's own and goes with it.
    cleanup: async () => undefined,
    get exitScript() {
      return `
      const { createCache } = require("./src/adapters/cache/create-cache");
      createCache({ kind: "redis-cluster", nodes: ${JSON.stringify(nodes)} }, ${JSON.stringify(prefix)})
        .then((cache) => cache.set("exit", "v", 5).then(() => cache.close()));`;
    },
  });
}

async function deleteByPrefix(url: string, prefix: string): Promise<void> {
  const raw = new Redis(url);
  try {
    // The raw client has no keyPrefix, so the pattern is the full key.
    for await (const keys of raw.scanStream({ match: `${prefix}*`, count: 500 })) {
      if ((keys as string[]).length > 0) await raw.del(...(keys as string[]));
    }
  } finally {
    await raw.quit();
  }
}

const isUnavailable = (err: unknown) => err instanceof AppError && err.code === "service_unavailable";

for (const impl of implementations) {
  describe(`Cache contract: ${impl.name}`, () => {
    let cache: Cache;
    let advance: (ms: number) => Promise<void>;

    beforeEach(async () => {
      ({ cache, advance } = await impl.make());
    });
    afterEach(async () => {
      await cache.close();
    });
    after(() => impl.cleanup());

    it("round-trips get, set and delete", async () => {
      assert.equal(await cache.get("rt:a"), null);
      await cache.set("rt:a", "one", 60);
      await cache.set("rt:b", "two", 60);
      assert.equal(await cache.get("rt:a"), "one");
      await cache.set("rt:a", "uno", 60);
      assert.equal(await cache.get("rt:a"), "uno");
      await cache.delete("rt:a", "rt:b", "rt:missing");
      assert.equal(await cache.get("rt:a"), null);
      assert.equal(await cache.get("rt:b"), null);
      await cache.delete();
      await cache.ping();
    });

    it("getMany reads several keys at once, in order, with null for missing and expired ones", async () => {
      await cache.setMany([
        { key: "{many}:a", value: "1", ttlSec: 60 },
        { key: "{many}:short", value: "2", ttlSec: 1 },
      ]);
      await cache.set("{many}:c", "3", 60);
      assert.deepEqual(await cache.getMany(["{many}:c", "{many}:missing", "{many}:a", "{many}:short"]), ["3", null, "1", "2"]);
      await advance(1100);
      assert.deepEqual(await cache.getMany(["{many}:a", "{many}:short"]), ["1", null]);
      assert.deepEqual(await cache.getMany([]), []);
    });

    it("reports the remaining TTL, or null for a missing key", async () => {
      assert.equal(await cache.ttlMs("ttl:missing"), null);
      await cache.set("ttl:a", "v", 60);
      const ttl = await cache.ttlMs("ttl:a");
      assert.ok(ttl !== null && ttl > 58_000 && ttl <= 60_000, `ttl ${ttl}`);
    });

    it("expires keys, counters and locks when their time is up", async () => {
      await cache.set("{exp}:a", "x", 1);
      await cache.setMany([
        { key: "{exp}:b", value: "y", ttlSec: 1 },
        { key: "{exp}:c", value: "z", ttlSec: 60 },
      ]);
      await cache.increment("{exp}:n", 1);
      assert.equal((await cache.increment("{exp}:n", 1)).count, 2);
      assert.equal(await cache.setIfAbsent("{exp}:lock", "a", 1000), true);

      await advance(1100); // the one real wait for Redis

      assert.equal(await cache.get("{exp}:a"), null);
      assert.equal(await cache.ttlMs("{exp}:a"), null);
      assert.equal(await cache.get("{exp}:b"), null);
      assert.equal(await cache.get("{exp}:c"), "z");
      assert.equal((await cache.increment("{exp}:n", 1)).count, 1, "a new window starts");
      assert.equal(await cache.setIfAbsent("{exp}:lock", "b", 1000), true, "an expired lock can be taken");
      assert.equal(await cache.get("{exp}:lock"), "b");
    });

    it("rejects non-positive and non-integer TTLs without writing", async () => {
      for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        await assert.rejects(cache.set("bad:a", "v", bad), Error);
        await assert.rejects(
          cache.setMany([
            { key: "bad:b", value: "v", ttlSec: 60 },
            { key: "bad:c", value: "v", ttlSec: bad },
          ]),
          Error,
        );
        await assert.rejects(cache.setIfAbsent("bad:d", "v", bad), Error);
        await assert.rejects(cache.increment("bad:e", bad), Error);
      }
      await cache.set("bad:guard", "g", 60);
      await assert.rejects(cache.replaceIfEquals("bad:guard", "g", [{ key: "bad:f", value: "v", ttlSec: 0 }]), Error);
      for (const key of ["bad:a", "bad:b", "bad:c", "bad:d", "bad:e", "bad:f"]) {
        assert.equal(await cache.get(key), null, key);
      }
      assert.equal(await cache.get("bad:guard"), "g");
    });

    it("setMany hands back what each key held just before it, null where absent", async () => {
      await cache.set("{prev}:a", "old-a", 60);
      const previous = await cache.setMany([
        { key: "{prev}:a", value: "new-a", ttlSec: 60 },
        { key: "{prev}:b", value: "new-b", ttlSec: 60 },
      ]);
      assert.deepEqual(previous, ["old-a", null]);
      assert.deepEqual(await cache.setMany([{ key: "{prev}:b", value: "newer-b", ttlSec: 60 }]), ["new-b"]);
      assert.deepEqual(await cache.getMany(["{prev}:a", "{prev}:b"]), ["new-a", "newer-b"]);
    });

    it("setMany reads the keys of alsoRead in the same step, as they stood before its writes", async () => {
      await cache.set("{also}:a", "old-a", 60);
      await cache.set("{also}:x", "x", 60);
      const values = await cache.setMany([{ key: "{also}:a", value: "new-a", ttlSec: 60 }], ["{also}:x", "{also}:y", "{also}:a"]);
      assert.deepEqual(values, ["old-a", "x", null, "old-a"]);
      assert.equal(await cache.get("{also}:a"), "new-a");
      assert.deepEqual(await cache.setMany([], ["{also}:a"]), ["new-a"], "a read alone is a read");
    });

    it("setMany writes every entry with its own TTL", async () => {
      await cache.setMany([
        { key: "{many}:a", value: "1", ttlSec: 30 },
        { key: "{many}:b", value: "2", ttlSec: 600 },
        { key: "{many}:c", value: "3", ttlSec: 3600 },
      ]);
      await cache.setMany([]);
      assert.equal(await cache.get("{many}:a"), "1");
      assert.equal(await cache.get("{many}:b"), "2");
      assert.equal(await cache.get("{many}:c"), "3");
      for (const [key, sec] of [["{many}:a", 30], ["{many}:b", 600], ["{many}:c", 3600]] as const) {
        const ttl = await cache.ttlMs(key);
        assert.ok(ttl !== null && ttl > sec * 1000 - 2000 && ttl <= sec * 1000, `${key} ttl ${ttl}`);
      }
    });

    it("deleteIfEquals deletes only while the value matches", async () => {
      await cache.set("die:a", "mine", 60);
      assert.equal(await cache.deleteIfEquals("die:a", "theirs"), false);
      assert.equal(await cache.get("die:a"), "mine");
      assert.equal(await cache.deleteIfEquals("die:a", "mine"), true);
      assert.equal(await cache.get("die:a"), null);
      assert.equal(await cache.deleteIfEquals("die:a", "mine"), false);
    });

    it("replaceIfEquals writes all entries only when the guard matches", async () => {
      await cache.set("{rie}:guard", "old", 60);
      const entries = [
        { key: "{rie}:guard", value: "new", ttlSec: 120 },
        { key: "{rie}:other", value: "x", ttlSec: 30 },
      ];
      assert.equal(await cache.replaceIfEquals("{rie}:guard", "stale", entries), false);
      assert.equal(await cache.get("{rie}:guard"), "old");
      assert.equal(await cache.get("{rie}:other"), null);
      assert.equal(await cache.replaceIfEquals("{rie}:missing", "old", entries), false);
      assert.equal(await cache.get("{rie}:other"), null);

      assert.equal(await cache.replaceIfEquals("{rie}:guard", "old", entries), true);
      assert.equal(await cache.get("{rie}:guard"), "new");
      assert.equal(await cache.get("{rie}:other"), "x");
      const ttl = await cache.ttlMs("{rie}:other");
      assert.ok(ttl !== null && ttl > 28_000 && ttl <= 30_000, `ttl ${ttl}`);
    });

    it("replaceIfEquals lets exactly one of 20 concurrent rotations win", async () => {
      await cache.set("{race}:guard", "v1", 60);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          cache.replaceIfEquals("{race}:guard", "v1", [
            { key: "{race}:guard", value: `v2-${i}`, ttlSec: 60 },
            { key: "{race}:winner", value: String(i), ttlSec: 60 },
          ]),
        ),
      );
      assert.equal(results.filter(Boolean).length, 1);
      const winner = results.indexOf(true);
      assert.equal(await cache.get("{race}:guard"), `v2-${winner}`);
      assert.equal(await cache.get("{race}:winner"), String(winner));
    });

    it("setIfAbsent lets exactly one of 20 concurrent callers take the key", async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => cache.setIfAbsent("lock:a", `owner-${i}`, 10_000)),
      );
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal(await cache.get("lock:a"), `owner-${results.indexOf(true)}`);
      const ttl = await cache.ttlMs("lock:a");
      assert.ok(ttl !== null && ttl > 8000 && ttl <= 10_000, `ttl ${ttl}`);
    });

    it("increment counts within a fixed window", async () => {
      const first = await cache.increment("inc:a", 60);
      const second = await cache.increment("inc:a", 60);
      const third = await cache.increment("inc:a", 60);
      assert.deepEqual([first.count, second.count, third.count], [1, 2, 3]);
      for (const r of [first, second, third]) assert.ok(r.resetInMs > 0 && r.resetInMs <= 60_000, `reset ${r.resetInMs}`);
      assert.ok(third.resetInMs <= first.resetInMs, "the window is fixed from the first increment");
      assert.equal((await cache.increment("inc:b", 60)).count, 1, "counters are independent");
    });

    it("close() lets the process exit", function () {
      this.timeout(30_000);
      const child = spawnSync(process.execPath, ["--require", "tsx/cjs", "-e", impl.exitScript], {
        cwd: root,
        timeout: 20_000,
        encoding: "utf8",
      });
      assert.equal(child.signal, null, "the process had to be killed: something kept it alive");
      assert.equal(child.status, 0, child.stderr);
    });
  });
}

if (testRedisUrl) {
  const url = testRedisUrl;

  describe("RedisCache specifics", () => {
    const prefixes: string[] = [];
    let raw: Redis;
    before(() => {
      raw = new Redis(url);
    });
    after(async () => {
      for (const p of prefixes) await deleteByPrefix(url, p);
      await raw.quit();
    });

    it("isolates instances with different prefixes", async () => {
      const [p1, p2] = [uniquePrefix("iso-a"), uniquePrefix("iso-b")];
      prefixes.push(p1, p2);
      const a = await createCache({ kind: "redis", url }, p1);
      const b = await createCache({ kind: "redis", url }, p2);
      try {
        await a.set("shared", "from-a", 60);
        assert.equal(await b.get("shared"), null);
        assert.equal(await b.setIfAbsent("shared", "from-b", 60_000), true);
        assert.equal((await a.increment("count", 60)).count, 1);
        assert.equal((await b.increment("count", 60)).count, 1);
        assert.equal(await a.replaceIfEquals("shared", "from-a", [{ key: "other", value: "1", ttlSec: 60 }]), true);
        assert.equal(await b.get("other"), null);
        assert.equal(await raw.get(`${p1}shared`), "from-a");
        assert.equal(await raw.get(`${p1}other`), "1");
        assert.equal(await raw.get(`${p2}shared`), "from-b");
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("uses the exact key when the prefix is empty", async () => {
      const id = uniquePrefix("exact").replace(/[:]/g, "-");
      const key = `access_token:${id}`;
      const cache = await createCache({ kind: "redis", url }, "");
      try {
        await cache.set(key, "tok", 60);
        assert.equal(await raw.get(key), "tok");
        assert.equal(await cache.replaceIfEquals(key, "tok", [{ key, value: "tok2", ttlSec: 60 }]), true);
        assert.equal(await raw.get(key), "tok2");
        assert.equal((await cache.increment(`${key}:n`, 60)).count, 1);
        assert.equal(await raw.get(`${key}:n`), "1");
        assert.ok((await raw.pttl(`${key}:n`)) > 0);
      } finally {
        await raw.del(key, `${key}:n`);
        await cache.close();
      }
    });

    it("fails to boot with a clear error when Redis does not answer", async () => {
      const warnings: unknown[] = [];
      const logger = { warn: (obj: object) => void warnings.push(obj) };
      const started = Date.now();
      await assert.rejects(createCache({ kind: "redis", url: "redis://:secret@127.0.0.1:1" }, "", logger), (err: Error) => {
        assert.match(err.message, /Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1.* did not answer/);
        assert.doesNotMatch(err.message, /secret/);
        return true;
      });
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 6000, `took ${elapsed} ms`);
      assert.ok(warnings.length >= 1 && warnings.length <= 2, `${warnings.length} warnings: rate limit`);
    });

    it("a command that timed out on a replaced connection never takes down the connection that replaced it", async function () {
      this.timeout(15_000);
      const target = new URL(url);
      const proxy = await TcpProxy.start(target.hostname, Number(target.port || 6379));
      const through = new URL(url);
      through.host = `127.0.0.1:${proxy.port}`;
      const prefix = uniquePrefix("stale-timeout");
      prefixes.push(prefix);
      const cache = new RedisCache(through.toString(), { keyPrefix: prefix, commandTimeoutMs: 1000 });
      try {
        await cache.waitUntilReady(5000);
        await cache.set("k", "v", 60);
        // A short partition: bytes are held, not lost. Commands go out over the first second; the
        // first one's timeout replaces the connection, and every other one must settle with it.
        proxy.silence("hold");
        const silencedAt = Date.now();
        const pending: Promise<number>[] = [];
        for (let i = 0; i < 9; i++) {
          pending.push(cache.get("k").then(() => -1, (err) => (isUnavailable(err) ? Date.now() - silencedAt : -2)));
          await sleep(100);
        }
        await sleep(1100 - (Date.now() - silencedAt));
        proxy.restore();
        const settledAfterMs = await Promise.all(pending);
        assert.ok(settledAfterMs.every((ms) => ms >= 0 && ms < 1500), `settled after ${settledAfterMs.join(", ")} ms`);

        // Back on a fresh connection. The held commands' own timers run out during the next
        // second; none of them may replace this healthy connection.
        const deadline = Date.now() + 5000;
        while ((await cache.ping().then(() => true, () => false)) === false) {
          assert.ok(Date.now() < deadline, "the cache never recovered");
          await sleep(50);
        }
        const failures: string[] = [];
        const until = Date.now() + 1500;
        while (Date.now() < until) {
          await cache.get("k").catch((err: Error) => failures.push(`${Date.now() - silencedAt} ms: ${err.message}`));
          await sleep(10);
        }
        assert.deepEqual(failures, []);
      } finally {
        await cache.close();
        await proxy.close();
      }
    });

    describe("when its server goes away", () => {
      let port: number;
      let server: ChildProcess | undefined;

      afterEach(() => stopServer());

      async function startServer(): Promise<boolean> {
        const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
          stdio: ["ignore", "pipe", "ignore"],
        });
        const ready = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), 5000);
          child.once("error", () => resolve(false));
          child.once("exit", () => resolve(false));
          child.stdout?.on("data", (chunk: Buffer) => {
            if (chunk.toString().includes("Ready to accept connections")) {
              clearTimeout(timer);
              resolve(true);
            }
          });
        });
        if (!ready) child.kill("SIGKILL");
        else server = child;
        return ready;
      }

      async function stopServer(): Promise<void> {
        const child = server;
        server = undefined;
        if (!child || child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGKILL");
        await exited;
      }

      it("rejects with service_unavailable quickly and recovers when the server returns", async function () {
        port = await freePort();
        if (!(await startServer())) this.skip();
        const cache = await createCache({ kind: "redis", url: `redis://127.0.0.1:${port}` }, "");
        try {
          await cache.set("k", "v", 60);
          await stopServer();

          let started = Date.now();
          await assert.rejects(cache.get("k"), isUnavailable);
          assert.ok(Date.now() - started < 3000, `first failure took ${Date.now() - started} ms`);
          await sleep(100);
          started = Date.now();
          await assert.rejects(cache.set("k", "v", 60), isUnavailable);
          await assert.rejects(cache.replaceIfEquals("k", "v", []), isUnavailable);
          await assert.rejects(cache.setMany([{ key: "k", value: "v", ttlSec: 60 }]), isUnavailable);
          assert.ok(Date.now() - started < 500, `later failures took ${Date.now() - started} ms`);

          assert.ok(await startServer(), "redis-server restarted");
          const deadline = Date.now() + 5000;
          for (;;) {
            try {
              await cache.ping();
              break;
            } catch (err) {
              assert.ok(isUnavailable(err));
              if (Date.now() > deadline) throw err;
              await sleep(100);
            }
          }
          await cache.set("k", "back", 60);
          assert.equal(await cache.get("k"), "back");
          assert.equal((await cache.increment("n", 60)).count, 1);
        } finally {
          await cache.close();
        }
      });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
