import type { AppConfig } from "../config/config";
import { platformDefinitions } from "../platforms/registry";
import type { ImportApp } from "../services/migration/player-importer";

/** What the importer needs of one app, from the server's own settings: the same namespaces the login uses. */
export function importAppOf(config: AppConfig, appKey: string): ImportApp {
  const app = config.apps.find((a) => a.key === appKey);
  if (!app) throw new Error(`no app "${appKey}"`);
  const enabled = platformDefinitions.filter((d) => d.name in config.platforms && d.name in app.platforms);
  return {
    key: appKey,
    platformAppIds: Object.fromEntries(enabled.map((d) => [d.name, app.platforms[d.name].appId])),
    appsOnPlatform: Object.fromEntries(enabled.map((d) => [d.name, config.apps.filter((a) => d.name in a.platforms).length])),
    keyOrder: Object.fromEntries(enabled.map((d) => [d.name, d.userKeyOrder])),
    linkAppsByUnionid: config.linkAppsByUnionid,
    placeholderEmailDomain: config.placeholderEmailDomain,
  };
}
