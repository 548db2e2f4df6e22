/**
 * A setting's yes/no as written in the environment or a settings file. Here, below config, because
 * each platform declares its own settings (platforms/*) and config reads them from the platforms.
 */
import { z } from "zod";

export const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");
