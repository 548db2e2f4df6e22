/**
 * What a new user meets first: Swagger UI prefilled with a login code nobody used yet (a fresh
 * simulator player per page load, never the README's `alice.1`), the routes near the top of
 * /api-docs (the reference rules on their own page), and a favicon instead of a 404.
 */
import assert from "node:assert/strict";
import { ERROR_CODES } from "../../src/core/errors";
import { startHarness, type Harness } from "../support/app-harness";

describe("first contact: /api-docs and the favicon (SQLite, memory)", function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startHarness({});
  });
  after(async () => h?.close());

  /** The document Swagger UI gets on one page load (swagger-ui-express puts it in the init script). */
  async function pageDocument(): Promise<any> {
    await fetch(`${h.baseUrl}/api-docs/`);
    const script = await (await fetch(`${h.baseUrl}/api-docs/swagger-ui-init.js`)).text();
    const json = /"swaggerDoc":\s*(\{[\s\S]*\}),\s*\n?\s*"customOptions"/.exec(script)?.[1];
    assert.ok(json, "the init script carries the document");
    return JSON.parse(json);
  }
  const jsCodeOf = (doc: any) => doc.paths["/api/minigame/wechat/login"].get.parameters.find((p: any) => p.name === "jsCode").example;

  it("prefills the WeChat login with a fresh code per page load, which logs in", async () => {
    const [first, second] = [jsCodeOf(await pageDocument()), jsCodeOf(await pageDocument())];
    assert.notEqual(first, "alice.1");
    assert.notEqual(first, second, "each page load gets its own player");
    assert.match(first, /^alice[0-9a-f]{6}\.1$/);
    const login = await fetch(`${h.baseUrl}/api/minigame/wechat/login?jsCode=${first}`);
    assert.equal(login.status, 200, await login.text());
  });

  it("opens with the routes: a short description, the reference rules and every error code on their own page", async () => {
    const doc = (await (await fetch(`${h.baseUrl}/api-docs.json`)).json()) as { info: { description: string } };
    assert.ok(doc.info.description.length < 2000, `${doc.info.description.length} characters before the first route`);
    assert.match(doc.info.description, /\/api-docs\/reference/);
    const reference = await fetch(`${h.baseUrl}/api-docs/reference`);
    assert.equal(reference.status, 200);
    assert.match(reference.headers.get("content-type") ?? "", /^text\/markdown/);
    const text = await reference.text();
    for (const heading of ["### Status codes", "### Sessions", "### Error codes"]) assert.ok(text.includes(heading), heading);
    for (const code of Object.keys(ERROR_CODES)) assert.ok(text.includes(`| \`${code}\` |`), code);
  });

  it("serves a favicon", async () => {
    const res = await fetch(`${h.baseUrl}/favicon.ico`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/x-icon");
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], "an ICO header");
    assert.equal(bytes.readUInt32LE(6 + 8), bytes.length - 22, "one image of the declared size");
  });
});
