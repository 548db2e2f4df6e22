/**
 * Every store migrates a fresh database from several processes starting at once, as pm2 starts a
 * cluster or a fleet rolls out on one schema: each process must open its store (one waits for the
 * other's migration), never fail on a half-made table or a migration recorded twice.
 */
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import type { AppConfig } from "../../src/config/config";
import { STORE_FACTORIES } from "../support/migrate-child";
import { storeImplementations } from "../support/store-configs";
import { compiledEntry } from "../support/compiled-source";

const PROCESSES = 4;

async function openAtOnce(config: AppConfig["store"]): Promise<string[]> {
  const children = Array.from({ length: PROCESSES }, () =>
    fork(compiledEntry("test/support/migrate-child.ts"), [JSON.stringify(config)], { execArgv: ["--enable-source-maps"], stdio: ["ignore", "inherit", "inherit", "ipc"] }),
  );
  const ready = children.map((c) => new Promise<void>((resolve) => c.once("message", () => resolve())));
  const answers = children.map(
    (c) =>
      new Promise<string>((resolve) => {
        ready[children.indexOf(c)].then(() => c.once("message", (m) => resolve(String(m))));
        c.once("exit", (code) => resolve(`exited (${code}) without answering`));
      }),
  );
  await Promise.all(ready);
  for (const c of children) c.send("go");
  return Promise.all(answers);
}

for (const impl of storeImplementations("migrate-at-once")) {
  describe(`stores migrate one fresh database from ${PROCESSES} processes at once: ${impl.name}`, function () {
    this.timeout(120_000);
    it(`opens every store (${Object.keys(STORE_FACTORIES).join(", ")}) in every process`, async () => {
      const fresh = await impl.prepare();
      try {
        const answers = await openAtOnce(fresh.config);
        assert.deepEqual(answers.filter((a) => a !== "ok"), []);
      } finally {
        await fresh.release();
      }
    });
  });
}
