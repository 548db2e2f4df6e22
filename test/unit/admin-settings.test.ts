/**
 * `npm run admin` on a development checkout reads the settings `npm start` read (development, `.env`)
 * instead of refusing arena.env's placeholders; on a host with arena.local.env, production; an
 * explicit NODE_ENV wins. A refusal's first line names the settings read and how to read the others.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { adminEnvironment, describeSettings } from "../../src/admin/admin-settings";

describe("admin CLI settings: the ones the server started with", () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-admin-settings-"));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("reads the development settings on a checkout without arena.local.env, as npm start does", () => {
    const environment = adminEnvironment({ PATH: "/bin" }, root);
    assert.equal(environment.env.NODE_ENV, "development");
    const line = describeSettings(environment, root);
    assert.match(line, /^admin read the development settings \(\.env < environment; NODE_ENV is unset and there is no arena\.local\.env/);
    assert.match(line, /NODE_ENV=production npm run admin/);
  });

  it("reads the production settings where arena.local.env exists, and says how to reach a development server", () => {
    fs.writeFileSync(path.join(root, "arena.local.env"), "JWT_SECRET=x\n");
    const environment = adminEnvironment({}, root);
    assert.equal(environment.env.NODE_ENV, "production");
    const line = describeSettings(environment, root);
    assert.match(line, /^admin read the production settings \(arena\.env < arena\.local\.env < environment; NODE_ENV is unset and arena\.local\.env exists\)/);
    assert.match(line, /NODE_ENV=development npm run admin -- … for a server started with npm start/);
  });

  it("keeps an explicit NODE_ENV", () => {
    fs.writeFileSync(path.join(root, "arena.local.env"), "");
    assert.equal(adminEnvironment({ NODE_ENV: "test" }, root).env.NODE_ENV, "test");
    assert.match(describeSettings(adminEnvironment({ NODE_ENV: "test" }, root), root), /NODE_ENV is set/);
  });
});
