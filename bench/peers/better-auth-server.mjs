/**
 * Peer 2: better-auth's anonymous sign-in (POST /api/auth/sign-in/anonymous) on SQLite
 * (better-sqlite3, file in BENCH_DB_FILE), schema created by better-auth's own migrations at start.
 * Plain node:http with better-auth's Node handler. PORT from the environment.
 */
import crypto from "node:crypto";
import http from "node:http";
import Database from "better-sqlite3";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { anonymous } from "better-auth/plugins/anonymous";
import { toNodeHandler } from "better-auth/node";

const database = new Database(process.env.BENCH_DB_FILE ?? ":memory:");
database.pragma("journal_mode = WAL");
const options = {
  database,
  secret: crypto.randomBytes(32).toString("hex"),
  baseURL: `http://127.0.0.1:${process.env.PORT}`,
  plugins: [anonymous()],
  // Its own limiter would refuse the load: the service runs with rate limits off too.
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
};
const { runMigrations } = await getMigrations(options);
await runMigrations();
const handler = toNodeHandler(betterAuth(options));

http
  .createServer((req, res) => {
    if (req.url === "/") return res.end("ok");
    return handler(req, res);
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
