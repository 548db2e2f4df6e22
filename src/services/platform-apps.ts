import { AppError } from "../core/errors";
import { DEFAULT_APP, identityNamespace } from "../core/apps";
import type { PlatformClient, PlatformDefinition } from "../platforms/platform";

/** One app on one platform: what a service needs to call the platform for that app. */
export interface PlatformApp {
  /** Our key of the app (`default`, or APPS_FILE's key). */
  app: string;
  /** The platform's app id of this app (watermarks, token cache keys, identity namespaces). */
  appId: string;
  definition: PlatformDefinition;
  /** This app's client: its credentials, its base URL. */
  client: PlatformClient;
}

/**
 * Every (platform, app) the deployment serves, built once from the config. Services ask it with an
 * explicit platform and app; nothing here remembers "the current app".
 */
export class PlatformApps {
  private readonly byKey = new Map<string, PlatformApp>();
  private readonly byAppId = new Map<string, PlatformApp>();
  private readonly platforms = new Set<string>();
  /** App keys, `default` first. */
  readonly appKeys: readonly string[];

  constructor(entries: readonly PlatformApp[], appKeys: readonly string[] = [DEFAULT_APP]) {
    for (const entry of entries) {
      const platform = entry.definition.name;
      this.platforms.add(platform);
      this.byKey.set(`${platform}\0${entry.app}`, entry);
      this.byAppId.set(`${platform}\0${entry.appId}`, entry);
    }
    this.appKeys = appKeys;
  }

  /** The app's entry on this platform: unknown_platform if the platform is not served, unknown_app if the app is not on it. */
  get(platform: string, app: string): PlatformApp {
    const entry = this.byKey.get(`${platform}\0${app}`);
    if (entry) return entry;
    throw new AppError(this.platforms.has(platform) ? "unknown_app" : "unknown_platform", { data: { platform } });
  }

  find(platform: string, app: string): PlatformApp | undefined {
    return this.byKey.get(`${platform}\0${app}`);
  }

  /**
   * The app a client names by the platform's app id (what the game reads at run time), the
   * default app when it names none. An app id this deployment does not serve is unknown_app.
   */
  resolve(platform: string, appId: string | undefined): PlatformApp {
    if (appId === undefined) return this.get(platform, DEFAULT_APP);
    const entry = this.byAppId.get(`${platform}\0${appId}`);
    if (!entry) throw new AppError("unknown_app", { data: { platform, appId } });
    return entry;
  }

  /** Every app of one platform, `default` first when it is on it. */
  appsOf(platform: string): PlatformApp[] {
    return this.appKeys.map((app) => this.byKey.get(`${platform}\0${app}`)).filter((e): e is PlatformApp => e !== undefined);
  }

  /** The namespace this app's own ids (openids) are stored under: see identityNamespace. */
  namespaceOf(entry: PlatformApp): string {
    return identityNamespace(entry.definition.name, entry.app === DEFAULT_APP ? null : entry.appId);
  }
}
