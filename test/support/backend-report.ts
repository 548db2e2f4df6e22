/**
 * Which backends a test run exercised, for the closing summary (summary-reporter.cjs). Suites
 * declare each backend they can use, with why it is skipped when it is; the reporter counts the
 * tests that ran against each by their titles, which name the backend ("— PostgreSQL + Redis").
 */
import fs from "node:fs";
import path from "node:path";

export interface BackendDeclaration {
  name: string;
  /** Matches the full title of every test that runs against this backend. */
  titles: RegExp;
  /** Set when the backend is not available in this run. */
  skipReason?: string;
}

const REGISTRY = Symbol.for("minigame-login.test-backends");

export function declareBackend(declaration: BackendDeclaration): void {
  const registry = ((globalThis as Record<symbol, unknown>)[REGISTRY] ??= new Map()) as Map<string, BackendDeclaration>;
  registry.set(declaration.name, declaration);
  // Under mocha --parallel the reporter runs in another process: a worker tells it through the run's folder (run-context.cjs).
  const runDir = process.env.MGL_TEST_RUN_DIR;
  if (runDir && process.env.MOCHA_WORKER_ID !== undefined && process.env.MGL_TEST_RUN_PID === String(process.ppid)) {
    const { name, titles, skipReason } = declaration;
    fs.appendFileSync(path.join(runDir, "backends.jsonl"), `${JSON.stringify({ name, titles: titles.source, flags: titles.flags, skipReason })}\n`);
  }
}
