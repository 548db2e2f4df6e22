/**
 * The export walks every store port: each port in src/core/ports is covered by a section of the
 * export as the server wires it (buildUserExport), or listed with its reason as holding nothing of
 * a player. A new port (the economy's wallet, inventory, mail and ledger; leaderboards) fails here
 * until its data is in the export or the omission is a written decision.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Order } from "../../src/core/ports/order-ledger";
import { buildUserExport, PORTS_WITHOUT_PLAYER_DATA } from "../../src/services/user-export";
import { rejectsWith } from "../support/app-error";

const PORTS_DIR = path.join(__dirname, "../../src/core/ports");
const ports = fs
  .readdirSync(PORTS_DIR)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3));

const order = { id: "o1", orderId: "sword-1", userId: "u1", env: 1, kind: "coin_spend", state: "delivered" } as unknown as Order;
const sources = {
  store: { exportUser: async (id: string) => (id === "u1" ? { user: { id: "u1" }, identities: [] } : null) },
  sessions: { liveApps: async () => ["default"] },
  ledger: async () => ({ listByUser: async (id: string) => (id === "u1" ? [order] : []) }),
  economy: async () => ({
    appsOf: async (id: string) => (id === "u1" ? ["default"] : []),
    state: async () => ({ balances: { gold: 5 }, items: { sword: 1 }, purchased: {} }),
    entries: async () => [],
  }),
  leaderboardRecords: async () => [{ app: "default", board: "highscores", period: 1, score: 42 }],
  saves: async () => ({
    listByOwner: async (id: string) =>
      id === "u1"
        ? [{ app: "default", collection: "slots", key: "one", ownerId: "u1", value: { level: 2 }, version: 3, permissionRead: "owner" as const, permissionWrite: "owner" as const, createdAt: "t0", updatedAt: "t1" }]
        : [],
  }),
};

describe("user export: one section per store port", () => {
  const userExport = buildUserExport(sources);

  it("covers every port of src/core/ports, or names why a port holds nothing of a player", () => {
    const covered = userExport.coveredPorts();
    const missing = ports.filter((p) => !covered.has(p) && !(p in PORTS_WITHOUT_PLAYER_DATA));
    assert.deepEqual(missing, [], `ports whose data the export leaves out: ${missing.join(", ")} (add a section in src/services/user-export.ts)`);
    const both = ports.filter((p) => covered.has(p) && p in PORTS_WITHOUT_PLAYER_DATA);
    assert.deepEqual(both, [], "a port is either exported or exempt, not both");
    const stale = [...covered, ...Object.keys(PORTS_WITHOUT_PLAYER_DATA)].filter((p) => !ports.includes(p));
    assert.deepEqual(stale, [], "names of ports that no longer exist");
  });

  it("exports the user, identities, sessions and orders (env named) in one object", async () => {
    const exported = await userExport.collect("u1");
    assert.deepEqual(Object.keys(exported).sort(), ["economy", "identities", "leaderboards", "orders", "saves", "sessionApps", "sessionLive", "user"]);
    assert.deepEqual(exported.saves, [{ app: "default", collection: "slots", key: "one", value: { level: 2 }, version: 3, permissionRead: "owner", permissionWrite: "owner", createdAt: "t0", updatedAt: "t1" }]);
    assert.deepEqual(exported.economy, { default: { balances: { gold: 5 }, items: [{ itemId: "sword", count: 1 }], ledger: [] } });
    assert.deepEqual((exported.orders as { orderId: string; env: string }[]).map((o) => [o.orderId, o.env]), [["sword-1", "sandbox"]]);
    assert.deepEqual(exported.sessionApps, ["default"]);
  });

  it("exports the player's customer-service messages and the replies to them", async () => {
    const message = { platform: "wechat", messageId: "9001", direction: "in" as const, kind: "text" as const, text: "help", detail: {}, operator: null, at: "t2", appId: "default" };
    const withSupport = buildUserExport({ ...sources, supportMessages: async (id: string) => (id === "u1" ? [{ ...message, userId: "u1" }] : []) });
    // The store's rows name their player; the export (the player's own record) leaves that out.
    assert.deepEqual((await withSupport.collect("u1")).supportMessages, [message]);
  });

  it("refuses an unknown user before reading the other ports", async () => {
    let ledgerOpened = false;
    const strict = buildUserExport({ ...sources, ledger: async () => ((ledgerOpened = true), sources.ledger()) });
    await assert.rejects(strict.collect("nobody"), rejectsWith("player_not_found"));
    assert.equal(ledgerOpened, false);
  });

  it("refuses a section name twice and a key two sections both write", async () => {
    assert.throws(() => buildUserExport(sources).add({ name: "orders", ports: [], collect: async () => ({}) }), /added twice/);
    const clash = buildUserExport(sources).add({ name: "extra", ports: [], collect: async () => ({ orders: [] }) });
    await assert.rejects(clash.collect("u1"), /repeats the key "orders"/);
  });
});
