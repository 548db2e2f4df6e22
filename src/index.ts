/** Process entry: load settings, listen. Everything else lives in app.config.ts. */
import { listen } from "@colyseus/tools";
import { createApp } from "./app.config";
import { ConfigError, loadConfig } from "./config/config";
import { createLogger } from "./logging/logger";

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
  const app = createApp(settings, { logger });
  const server = await listen(app.definition, settings.port);
  logger.info({ port: (server as unknown as { port: number }).port }, `listening on http://localhost:${(server as unknown as { port: number }).port}`);
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
