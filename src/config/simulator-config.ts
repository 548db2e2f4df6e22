/** Settings read by the standalone simulator (`npm run simulator`). */
import { z } from "zod";
import { ConfigError, withoutBlanks } from "./config";
import { int, type Env } from "./config-types";

/** `platform:appId:secret` entries, comma-separated: the apps of a studio the simulator accepts beside its own. */
const appList = z
  .string()
  .transform((v) => v.split(",").map((x) => x.trim()).filter(Boolean))
  .pipe(
    z.array(
      z
        .string()
        .regex(/^[a-z]+:[^:]+:[^:]+$/, "each entry must be platform:appId:secret")
        .transform((entry) => {
          const [platform, appId, appSecret] = entry.split(":");
          return { platform, appId, appSecret };
        }),
    ),
  );

const simulatorSettingsSchema = z.object({
  SIMULATOR_PORT: int(0, 65535).default(3999),
  SIMULATOR_HOST: z.string().default("127.0.0.1"),
  SIMULATOR_APPS: appList.default([]),
});

export interface SimulatorConfig {
  port: number;
  host: string;
  /** Apps accepted beside each platform's simulator app (a studio's several games). */
  apps: Array<{ platform: string; appId: string; appSecret: string }>;
}

export function loadSimulatorConfig(processEnv: Env = process.env): SimulatorConfig {
  const parsed = simulatorSettingsSchema.safeParse(withoutBlanks(processEnv));
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  return { port: parsed.data.SIMULATOR_PORT, host: parsed.data.SIMULATOR_HOST, apps: parsed.data.SIMULATOR_APPS };
}
