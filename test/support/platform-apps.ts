/** PlatformApps over fake clients, for unit tests of the services that call platforms per app. */
import type { PlatformClient, PlatformDefinition } from "../../src/platforms/platform";
import { PlatformApps } from "../../src/services/platform-apps";

export interface FakeAppEntry {
  platform: string;
  client: PlatformClient;
  /** Our app key; default `default`. */
  app?: string;
  /** The platform's app id; default `app`. */
  appId?: string;
}

/** Only the definition's name matters to these services; player-data features are none. */
export function fakePlatformApps(entries: FakeAppEntry[]): PlatformApps {
  const keys = [...new Set(["default", ...entries.map((e) => e.app ?? "default")])];
  return new PlatformApps(
    entries.map((e) => ({ app: e.app ?? "default", appId: e.appId ?? "app", client: e.client, definition: { name: e.platform } as PlatformDefinition })),
    keys,
  );
}
