import fs from "node:fs";
import path from "node:path";
import express, { Router } from "express";
import type { PlatformDefinition } from "../platforms/platform";
import type { PlatformApps } from "../services/platform-apps";

/** `public/` next to `src/` when run with tsx, and two levels up from `build/src/` when built. */
function publicDir(): string {
  const candidates = [path.resolve(__dirname, "../../public"), path.resolve(__dirname, "../../../public")];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, "playground", "index.html")));
  if (!found) throw new Error(`playground files not found in ${candidates.join(" or ")}`);
  return path.join(found, "playground");
}

/** The game client's drop-in file (client/dist), built by `npm ci` / `npm run build:client`. */
function clientDropInFile(): string | undefined {
  const candidates = [path.resolve(__dirname, "../../client/dist"), path.resolve(__dirname, "../../../client/dist")];
  return candidates.map((dir) => path.join(dir, "minigame-client.js")).find((file) => fs.existsSync(file));
}

/**
 * The browser playground at `/`, using this repository's game client, served locally so no CDN is
 * needed. Each platform lists its apps (key and platform app id, never a secret), so a player can
 * pick which of a studio's games to log in to.
 */
export function playgroundRoutes(platforms: readonly PlatformDefinition[], apps: PlatformApps): Router {
  const router = Router();
  const platformList = platforms.map((p) => ({
    name: p.name,
    displayName: p.displayName,
    codeParams: p.codeParams,
    apps: apps.appsOf(p.name).map((a) => ({ key: a.app, appId: a.appId })),
  }));
  router.get("/playground/platforms.json", (_req, res) => {
    res.json(platformList);
  });
  router.get("/vendor/minigame-client.js", (_req, res) => {
    // Looked up per request: a `npm run build:client` while the server runs is picked up.
    const file = clientDropInFile();
    if (!file) {
      res.status(503).type("text/plain").send("client/dist/minigame-client.js is missing: run npm run build:client");
      return;
    }
    res.type("application/javascript").sendFile(file);
  });
  router.use(express.static(publicDir(), { index: "index.html", fallthrough: true }));
  return router;
}
