/** Settings read by the standalone simulator (`npm run simulator`). */
import { z } from "zod";
import { ConfigError, withoutBlanks } from "./config";
import { int, type Env } from "./config-types";

const simulatorSettingsSchema = z.object({
  SIMULATOR_PORT: int(0, 65535).default(3999),
  SIMULATOR_HOST: z.string().default("127.0.0.1"),
});

export function loadSimulatorConfig(processEnv: Env = process.env): { port: number; host: string } {
  const parsed = simulatorSettingsSchema.safeParse(withoutBlanks(processEnv));
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  return { port: parsed.data.SIMULATOR_PORT, host: parsed.data.SIMULATOR_HOST };
}
