/**
 * `npm run import -- leancloud-class` as an operator runs it, on every store: after the users, a
 * class export killed with SIGKILL at a random point and run again ends as one run (every row once,
 * on its owner), and a further run imports nothing.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importAppOf } from "../../src/admin/import-app";
import { createSaveStore } from "../../src/adapters/store/create-save-store";
import { createUserStore } from "../../src/adapters/store/create-user-store";
import { parseConfig } from "../../src/config/config";
import { runImport } from "../../src/services/migration/import-run";
import { LEANCLOUD_AUTH_PLATFORMS } from "../../src/services/migration/leancloud-users";
import { PlayerImporter } from "../../src/services/migration/player-importer";
import { simulatorPlatformEnv } from "../../src/simulator/simulator-server";
import { storeBackends as backends } from "../support/backends";
import { ROOT } from "../support/build";
import { compiledEntry } from "../support/compiled-source";
import { leanCloudUserRow, writeExport } from "../fixtures/leancloud/user-rows";

/** The import CLI compiled beforehand (compiled-source.ts): tsx's CLI would start two processes and a loader per run. */
const IMPORT_CLI = () => ["--enable-source-maps", compiledEntry("src/admin/import-main.ts")];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const args = (file: string) => ["leancloud-class", file, "--collection", "progress", "--owner", "player", "--window", "16"];

function runCli(env: NodeJS.ProcessEnv, ...rest: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...IMPORT_CLI(), ...rest], { cwd: ROOT, env, maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

for (const backend of backends) {
  describe(`npm run import -- leancloud-class, killed and resumed — ${backend.name}`, function () {
    this.timeout(300_000);
    const PLAYERS = 50;
    // FerretDB writes one at a time (about 75 ms a row here): fewer rows there, still a kill mid-run.
    // Elsewhere rows go in batches (5,000 a second on SQLite): enough that the first checkpoint (1 s) comes before the end.
    const ROWS = backend.name.startsWith("MongoDB") ? 150 : 12_000;
    let release: () => Promise<void> = async () => undefined;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lcc-cli-"));
    after(async () => {
      await release();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    it(`${ROWS} rows: killed at a random point and run again: every row once on its owner; a third run imports nothing`, async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      const env = {
        ...(process.env as Record<string, string>),
        NODE_ENV: "test",
        JWT_SECRET: "leancloud-class-tests-jwt-secret-0123456789",
        LOG_LEVEL: "warn",
        // A loaded machine (the suites run two at a time) can take longer than the 800 ms default to connect.
        DATABASE_CONNECT_TIMEOUT_MS: "10000",
        SQLITE_PATH: path.join(tmp, "class.sqlite"),
        ...simulatorPlatformEnv("http://127.0.0.1:9"),
        ...prepared.env,
      };
      const config = parseConfig(env);
      const users = await createUserStore(config.store);
      try {
        const userRows = Array.from({ length: PLAYERS }, (_, i) => leanCloudUserRow({ objectId: `lcu${i}`, authKey: "lc_weapp", openid: `oClassPlayer${i}` }));
        const importer = new PlayerImporter(users, importAppOf(config, "default"));
        await runImport({ file: writeExport(tmp, userRows), importer, platforms: LEANCLOUD_AUTH_PLATFORMS, report: () => undefined });
      } finally {
        await users.close();
      }
      const rows = Array.from({ length: ROWS }, (_, i) => ({
        objectId: `row${i}`,
        player: { __type: "Pointer", className: "_User", objectId: `lcu${i % PLAYERS}` },
        score: i,
        createdAt: "2024-01-01T00:00:00.000Z",
        updatedAt: "2024-01-02T00:00:00.000Z",
        ACL: { "*": { read: true } },
      }));
      const file = writeExport(tmp, rows, "Progress.jsonl");

      const child = spawn(process.execPath, [...IMPORT_CLI(), ...args(file)], { cwd: ROOT, env, stdio: "ignore" });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      const deadline = Date.now() + 60_000;
      const stateFile = `${file}.progress.import-state.json`;
      while (!fs.existsSync(stateFile) && Date.now() < deadline && child.exitCode === null) await sleep(20);
      assert.equal(child.exitCode, null, "the import ended before it could be killed");
      assert.equal(JSON.parse(fs.readFileSync(stateFile, "utf8")).done, false, "the import finished before its first checkpoint: more rows are needed");
      await sleep(Math.floor(Math.random() * 100)); // within 100 ms of the first checkpoint: before the end
      child.kill("SIGKILL");
      await exited;

      const resumed = await runCli(env, ...args(file));
      assert.equal(resumed.status, 0, resumed.stderr);
      assert.match(resumed.stderr, /resuming after \d+ rows/, "the kill landed before the end");
      const counts = JSON.parse(resumed.stdout).counts;
      assert.equal(counts.read, ROWS, "the resumed run read some rows twice or missed some");
      assert.equal(counts.imported + counts.already, ROWS);

      const saves = await createSaveStore(config.store);
      const userStore = await createUserStore(config.store);
      try {
        const owner = await userStore.findByIdentity({ platform: "leancloud", platformId: "lcu7" });
        const objects = await saves.listByOwner(owner!.id);
        assert.deepEqual(objects.map((o) => o.value.score).sort((a, b) => Number(a) - Number(b)), Array.from({ length: ROWS / PLAYERS }, (_, k) => 7 + k * PLAYERS));
        assert.ok(objects.every((o) => o.collection === "progress" && o.permissionRead === "public" && o.key === `row${o.value.score}`));
      } finally {
        await saves.close();
        await userStore.close();
      }

      const again = await runCli(env, ...args(file), "--restart");
      assert.equal(again.status, 0, again.stderr);
      const third = JSON.parse(again.stdout).counts;
      assert.deepEqual([third.imported, third.already, third.skipped], [0, ROWS, 0]);
    });
  });
}
