/**
 * `npm run admin` as the suites run it: a child process, not spawnSync, so the server and simulator in this process answer meanwhile.
 * src/admin/main.ts compiled beforehand (compiled-source.ts) rather than under tsx's CLI, which would start two processes and a loader per call.
 */
import { execFile } from "node:child_process";
import { ROOT } from "./build";
import { compiledEntry } from "./compiled-source";

export function runAdmin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--enable-source-maps", compiledEntry("src/admin/main.ts"), ...args], { cwd: ROOT, env }, (err, stdout, stderr) =>
      resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
