/**
 * Keeps the README and the reference it links to honest, without starting a server:
 * - every setting the config schema knows has its line in arena.env, and arena.env names no other;
 * - every route the API router registers is in the API description, and the description has no other;
 * - the README names only settings that exist, commands whose scripts exist, and paths and links
 *   that exist in a clone (or are git-ignored, like arena.local.env and data/).
 * The checks read the code's own lists (the zod schema, the router's stack, package.json), so a
 * new setting, route or script is covered without editing this file.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Router } from "express";
import { createApiRouter } from "../../src/api/api-router";
import { opsRoutes } from "../../src/api/ops-routes";
import { buildOpenApiDocument } from "../../src/api/openapi/build-openapi";
import { parseConfig, settingsSchema } from "../../src/config/config";
import { buildServices, type Services } from "../../src/server/container";
import { createLogger } from "../../src/logging/logger";
import { platformDefinitions } from "../../src/platforms/registry";

const ROOT = path.resolve(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const existsInRepository = (file: string) => fs.existsSync(path.join(ROOT, file));

/** Markdown files whose links and paths are checked. */
const DOCUMENTS = ["README.md", "docs/platforms.md", "docs/stores.md", "docs/deploy.md", "CHANGELOG.md"];

/** Variables that tools the project runs read themselves (pm2's home folder), named in the deploy guide. */
const OTHER_TOOLS_VARIABLES = ["PM2_HOME"];
/** Variables of the tooling (tests, bench, CI, standalone simulator), not of the server. */
const TOOLING_SOURCES = ["test/support/services.ts", "bench/run.ts", ".ci/run", "src/config/simulator-config.ts"];

describe("README honesty", () => {
  describe("arena.env", () => {
    const schemaKeys = Object.keys(settingsSchema.shape).sort();
    const templateKeys = settingLines(read("arena.env"));

    it("has a line for every setting the config schema knows, the platform modules' included", () => {
      // The registry's keys are part of the schema: a new platform's settings are checked too.
      for (const p of platformDefinitions) assert.ok(schemaKeys.includes(`${p.name.toUpperCase()}_APP_SECRET`), p.name);
      const missing = schemaKeys.filter((key) => !templateKeys.includes(key));
      assert.deepEqual(missing, [], `arena.env lacks a (commented) KEY= line for: ${missing.join(", ")}`);
    });

    it("names no setting the schema does not know", () => {
      const unknown = templateKeys.filter((key) => !schemaKeys.includes(key));
      assert.deepEqual(unknown, [], `arena.env names settings the server ignores: ${unknown.join(", ")}`);
    });
  });

  describe("routes", () => {
    let services: Services;
    const platformSettings = Object.fromEntries(
      platformDefinitions.flatMap((p) => [
        [`${p.name.toUpperCase()}_APP_ID`, `${p.name}-app`],
        [`${p.name.toUpperCase()}_APP_SECRET`, `${p.name}-secret`],
      ]),
    );

    before(async () => {
      // Every platform served, no simulator and an in-memory SQLite: nothing listens, nothing is written.
      const config = parseConfig({
        NODE_ENV: "test",
        PLATFORM_SIMULATOR: "off",
        PLATFORMS: platformDefinitions.map((p) => p.name).join(","),
        SQLITE_PATH: ":memory:",
        ...platformSettings,
      });
      services = await buildServices(config, createLogger({ level: "silent" }));
    });
    after(() => services?.close());

    it("every route under /api is in the API description, and the description has no other", () => {
      const served = routesOf(createApiRouter(services), "/api");
      assert.ok(served.length >= 3 * platformDefinitions.length + 8, `found only ${served.length} routes: is the router walk broken?`);
      const document = buildOpenApiDocument({ platforms: services.platformDefinitions, placeholderEmailDomain: "players.invalid" }) as {
        paths: Record<string, Record<string, unknown>>;
      };
      // The console's routes (/console/api) are checked against the document by console-openapi.test.ts.
      const documented = Object.entries(document.paths)
        .filter(([route]) => route.startsWith("/api/"))
        .flatMap(([route, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`))
        .sort();
      assert.deepEqual(served, documented);
    });

    it("the README names every operations route outside /api", () => {
      const routes = routesOf(opsRoutes({ store: services.store, cache: services.cache, metrics: services.metrics }), "");
      assert.ok(routes.length >= 3, routes.join(", "));
      const readme = read("README.md");
      for (const route of routes) assert.ok(readme.includes(route.split(" ")[1]), `README.md does not mention ${route}`);
    });
  });

  describe("README.md", () => {
    const readme = read("README.md");
    const scripts = Object.keys(JSON.parse(read("package.json")).scripts as Record<string, string>);

    it("stays a task guide under 250 lines (reference goes to docs/)", () => {
      const lines = readme.split("\n").length;
      assert.ok(lines < 250, `README.md has ${lines} lines`);
    });

    it("keeps the two set-up commands", () => {
      assert.ok(readme.includes("npm ci && npm start"));
      assert.ok(readme.includes("npm ci && npm test"));
    });

    it("runs only npm scripts that exist in package.json, as does docs/platforms.md", () => {
      assert.ok([...readme.matchAll(/\bnpm run /g)].length >= 3, "found under 3 npm run commands: is the pattern broken?");
      for (const document of ["README.md", "docs/platforms.md", "docs/deploy.md"]) {
        const text = read(document);
        const named = [...text.matchAll(/\bnpm run ([\w:.-]+)/g), ...text.matchAll(/\bnpm (start|test)\b/g)].map((m) => m[1]);
        const missing = [...new Set(named)].filter((script) => !scripts.includes(script));
        assert.deepEqual(missing, [], `${document} runs scripts package.json lacks: ${missing.join(", ")}`);
      }
    });

    it("runs only binaries and files that exist", () => {
      for (const [, file] of readme.matchAll(/\bbash ([\w./-]+)/g)) assert.ok(existsInRepository(file), `bash ${file}`);
      for (const [, bin] of readme.matchAll(/\bnpx ([\w-]+)/g)) {
        assert.ok(existsInRepository(`node_modules/.bin/${bin}`), `npx ${bin}: not installed by npm ci`);
      }
    });

    it("names only settings that exist (in the schema, or of the tooling), as does docs/platforms.md", () => {
      const schemaKeys = Object.keys(settingsSchema.shape);
      const tooling = TOOLING_SOURCES.map(read).join("\n");
      for (const document of ["README.md", "docs/platforms.md", "docs/deploy.md"]) {
        const text = read(document);
        const named = new Set([
          ...[...text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((m) => m[0]),
          ...[...text.matchAll(/`([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]),
        ]);
        const known = (name: string) => schemaKeys.includes(name) || OTHER_TOOLS_VARIABLES.includes(name) || new RegExp(`\\b${name}\\b`).test(tooling);
        const unknown = [...named].filter((name) => !known(name));
        assert.deepEqual(unknown, [], `${document} names settings nothing reads: ${unknown.join(", ")}`);
      }
    });
  });

  describe("files the README links", () => {
    const manifest = JSON.parse(read("package.json")) as { license: string; version: string };

    it("LICENSE is the licence package.json names", () => {
      assert.equal(manifest.license, "MIT");
      assert.match(read("LICENSE"), /^MIT License\n/);
    });

    it("CHANGELOG.md has a section for package.json's version", () => {
      assert.ok(read("CHANGELOG.md").includes(`\n## ${manifest.version} - `), `no "## ${manifest.version} - <date>" section`);
    });

    it("`npx mocha <file>` runs that file only: .mocharc.json names no spec (mocha would add it)", () => {
      assert.equal((JSON.parse(read(".mocharc.json")) as { spec?: unknown }).spec, undefined);
    });
  });

  for (const document of DOCUMENTS) {
    it(`${document}: links and repository paths point at files that exist`, () => {
      const text = read(document);
      const base = path.dirname(document);
      const ignored = gitIgnored();
      const targets = [
        ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:|^#/.test(t)).map((t) => path.join(base, t.split("#")[0])),
        ...[...text.matchAll(/`([^`\s]+)`/g)].map((m) => repositoryPath(m[1])).filter((p): p is string => p !== undefined),
      ];
      assert.ok(targets.length > 0 || document === "CHANGELOG.md", `no paths found in ${document}`);
      const missing = [...new Set(targets)].filter((p) => !existsInRepository(p) && !ignored(p));
      assert.deepEqual(missing, [], `${document} points at paths that do not exist: ${missing.join(", ")}`);
    });

    it(`${document}: links to a section of a Markdown file name a heading it has`, () => {
      const base = path.dirname(document);
      for (const [, file, anchor] of read(document).matchAll(/\]\(([^)\s#:]*\.md)?#([^)\s]+)\)/g)) {
        const target = file ? path.join(base, file) : document;
        const slugs = [...read(target).matchAll(/^#+ (.+)$/gm)].map((m) => headingSlug(m[1]));
        assert.ok(slugs.includes(anchor), `${document} links to ${target}#${anchor}, which has no such heading`);
      }
    });
  }
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingSlug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** KEY of every `KEY=value` or `#KEY=value` line. */
function settingLines(env: string): string[] {
  return [...env.matchAll(/^#?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]).sort();
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean | undefined> };
  handle?: { stack?: Layer[] };
  /** The path a layer was mounted at (router 2.x keeps it as given). */
  rawPath?: unknown;
}

/** `METHOD /path` of every route a router registers, mounted sub-routers included, sorted. */
function routesOf(router: Router, prefix: string): string[] {
  const routes: string[] = [];
  const walk = (stack: Layer[], at: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const template = (at + layer.route.path).replace(/:(\w+)/g, "{$1}");
        const methods = Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m]);
        assert.ok(!methods.includes("_all"), `${template} answers every method`);
        for (const method of methods) routes.push(`${method.toUpperCase()} ${template}`);
      } else if (layer.handle?.stack) {
        assert.equal(typeof layer.rawPath, "string", "a mounted router's path is no longer layer.rawPath: update routesOf");
        walk(layer.handle.stack, at + (layer.rawPath === "/" ? "" : (layer.rawPath as string)));
      }
    }
  };
  walk((router as unknown as { stack: Layer[] }).stack, prefix);
  return [...new Set(routes)].sort();
}

const TOP_LEVEL = new Set(fs.readdirSync(ROOT));

/**
 * The repository path a code span names, or undefined when it names none: a URL path (`/api-docs`),
 * a package (`colyseus.js`), a command. A template (`src/platforms/<name>/`) gives its fixed part.
 * Paths are recognised by their first folder (a top-level entry, or an ignored one such as data/),
 * or, without a folder, as a root file ending in .md or .env (`arena.env`, `arena.local.env`).
 */
function repositoryPath(span: string): string | undefined {
  const whole = span.replace(/^\.\//, "");
  const fixed = whole.split(/[<{…*]/)[0];
  if (fixed !== whole && !fixed.endsWith("/")) return undefined;
  if (!/^[\w.-]+(\/[\w.-]*)*$/.test(fixed)) return undefined;
  if (!fixed.includes("/")) return /\.(md|env)$/.test(fixed) ? fixed : undefined;
  const first = fixed.split("/")[0];
  return TOP_LEVEL.has(first) || IGNORED_TOP_LEVEL.test(first) ? fixed : undefined;
}

/** Folders a clone lacks until something runs: the build, the SQLite data, test screenshots. */
const IGNORED_TOP_LEVEL = /^(build|data|test-results)$/;

/**
 * A matcher for the simple patterns of our .gitignore files (`dir/`, `name`, `*` globs): the root
 * one and those of top-level folders (bench/.gitignore), each relative to its folder.
 */
function gitIgnored(): (file: string) => boolean {
  const files = [".gitignore", ...[...TOP_LEVEL].map((entry) => `${entry}/.gitignore`).filter(existsInRepository)];
  const patterns = files.flatMap((file) => {
    const folder = path.dirname(file) === "." ? "" : `${path.dirname(file)}/`;
    return read(file)
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"))
      .map((pattern) => {
        const body = pattern.replace(/\/$/, "").replace(/[.+^$()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*");
        // Anchored to its folder when it contains a slash; otherwise a name at any depth below it. A match covers what lies below.
        const anchor = body.includes("/") ? `^${escape(folder)}` : `^${escape(folder)}(.*/)?`;
        return new RegExp(`${anchor}${body}(/|$)`);
      });
  });
  return (file) => patterns.some((p) => p.test(file));
}

const escape = (text: string) => text.replace(/[.+^$()|[\]\\]/g, "\\$&");
