/**
 * Standalone platform simulator (`npm run simulator`), for running the login service or a client
 * against WeChat and Douyin without the real platforms. Serves the default simulator apps.
 */
import { loadSimulatorConfig } from "../config/config";
import { DEFAULT_SIMULATOR_APPS, startSimulator } from "./simulator-server";

async function main(): Promise<void> {
  const { host, port } = loadSimulatorConfig();
  const simulator = await startSimulator({ host, port, apps: DEFAULT_SIMULATOR_APPS });
  const apps = DEFAULT_SIMULATOR_APPS.map((a) => `${a.platform} ${a.appId}`).join(", ");
  process.stdout.write(`platform simulator listening at ${simulator.url} (apps: ${apps})\n`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    simulator.close().catch((err: unknown) => {
      process.stderr.write(`platform simulator: error while closing: ${String(err)}\n`);
      process.exitCode = 1;
    });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`platform simulator failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
