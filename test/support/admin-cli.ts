/** `npm run admin` as the suites run it: a child process, not spawnSync, so the server and simulator in this process answer meanwhile. */
import { execFile } from "node:child_process";
import path from "node:path";
import { ROOT } from "./build";

const TSX_CLI = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");

export function runAdmin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSX_CLI, "src/admin/main.ts", ...args], { cwd: ROOT, env }, (err, stdout, stderr) =>
      resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
