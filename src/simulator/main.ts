/**
 * Standalone platform simulator (`npm run simulator`), for running the login service or a client
 * against every registered platform without the real platforms. Serves each platform's simulator app
 * and the apps listed in SIMULATOR_APPS (`platform:appId:secret`, comma-separated), as a studio's games.
 */
import "../config/node-floor"; // first: on Node < 22 it says so and exits, before a dependency fails to load
import { loadSimulatorConfig } from "../config/simulator-config";
import { defaultSimulatorApps, simulatorPathPrefixes, startSimulator } from "./simulator-server";

async function main(): Promise<void> {
  const config = loadSimulatorConfig();
  const { host, port } = config;
  // Each platform's own simulator app, and a studio's apps (SIMULATOR_APPS=wechat:wx_a:secret_a,…).
  const apps = [...defaultSimulatorApps(), ...config.apps];
  const simulator = await startSimulator({ host, port, apps });
  const prefixes = simulatorPathPrefixes();
  const described = apps.map((a) => `${a.platform} ${a.appId} at ${simulator.url}${prefixes.get(a.platform) ?? ""}`).join(", ");
  process.stdout.write(`platform simulator listening at ${simulator.url} (apps: ${described})\n`);

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
