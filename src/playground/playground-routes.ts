import fs from "node:fs";
import path from "node:path";
import express, { Router } from "express";
import type { PlatformDefinition } from "../platforms/platform";

/** `public/` next to `src/` when run with tsx, and two levels up from `build/src/` when built. */
function publicDir(): string {
  const candidates = [path.resolve(__dirname, "../../public"), path.resolve(__dirname, "../../../public")];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, "playground", "index.html")));
  if (!found) throw new Error(`playground files not found in ${candidates.join(" or ")}`);
  return path.join(found, "playground");
}

/** The package's exports hide `dist/`, so locate it from its package.json. */
function colyseusBrowserBundle(): string {
  return path.join(path.dirname(require.resolve("colyseus.js/package.json")), "dist", "colyseus.js");
}

/** The browser playground at `/`, with the Colyseus client served locally so no CDN is needed. */
export function playgroundRoutes(platforms: readonly PlatformDefinition[]): Router {
  const router = Router();
  const bundle = colyseusBrowserBundle();
  const platformList = platforms.map((p) => ({ name: p.name, displayName: p.displayName, codeParams: p.codeParams }));
  router.get("/playground/platforms.json", (_req, res) => {
    res.json(platformList);
  });
  router.get("/vendor/colyseus.js", (_req, res) => {
    res.type("application/javascript").sendFile(bundle);
  });
  router.use(express.static(publicDir(), { index: "index.html", fallthrough: true }));
  return router;
}
