import fs from "node:fs";
import path from "node:path";
import express, { Router } from "express";
import { projectRoot } from "../config/settings-files";
import type { PlatformDefinition } from "../platforms/platform";
import type { PlatformApps } from "../services/platform-apps";

/** `public/playground` of the project, whether this runs from src/ (tsx) or a build folder. */
function publicDir(): string {
  const dir = path.join(projectRoot(), "public", "playground");
  if (!fs.existsSync(path.join(dir, "index.html"))) throw new Error(`playground files not found in ${dir}`);
  return dir;
}

/** The game client's drop-in file (client/dist), built by `npm ci` / `npm run build:client`. */
function clientDropInFile(): string | undefined {
  const file = path.join(projectRoot(), "client", "dist", "minigame-client.js");
  return fs.existsSync(file) ? file : undefined;
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
