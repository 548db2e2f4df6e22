/** Process entry: load settings, listen. Everything else lives in app.config.ts. */
import "../config/node-floor"; // first: on Node < 22 it says so and exits, before a dependency fails to load
import { ConfigError, loadConfig } from "../config/config";
import { handColyseusTimeouts } from "./colyseus-environment";
import { loadWithLogger } from "./colyseus-logger";
import { StartupError } from "./container";
import { createLogger } from "../logging/logger";
import { keepServingAfterRequestErrors } from "./request-guard";

async function main(): Promise<void> {
  let settings;
  try {
    settings = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ level: settings.logLevel });
  // Colyseus fixes its timeouts when it is loaded, so it is loaded only after they are set.
  handColyseusTimeouts(settings.colyseus);
  // require, not import(): under tsx an import() would load Colyseus's ESM build beside the CommonJS
  // one app.config.ts uses, two matchmakers in one process.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { listen } = loadWithLogger(logger, () => require("@colyseus/tools") as typeof import("@colyseus/tools"));
  const { createApp } = require("./app.config") as typeof import("./app.config");
  /* eslint-enable @typescript-eslint/no-require-imports */
  const app = createApp(settings, { logger });
  // listen() adds NODE_APP_INSTANCE (pm2) to the port and tells pm2 "ready"; the transport binds HOST.
  const server = await listen(app.definition, settings.port);
  // After listen(): Colyseus has installed its shutdown on uncaught exceptions, which this keeps for errors outside requests.
  keepServingAfterRequestErrors(logger);
  const port = (server as unknown as { port: number }).port;
  const shown = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  logger.info({ host: settings.host, port }, `listening on http://${shown}:${port}`);
}

main().catch((err) => {
  // A known cause names the setting; anything else keeps its stack for whoever debugs it.
  const detail = err instanceof StartupError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`failed to start: ${detail}\n`);
  process.exit(1);
});
