/**
 * The behaviour every platform shares, run over every registered platform (so a new platform is
 * covered by adding it to the registry) and over both backends.
 */
import assert from "node:assert/strict";
import { startHarness, type Harness, useHarness } from "../support/app-harness";
import { backends } from "../support/backends";
import { expectedClass, freshPlayer, loginPath, platformDefinitions } from "../support/platforms";

function assertFailure(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.data.code, code);
}

for (const backend of backends) {
  describe(`every platform — ${backend.name}`, () => {
    const h = useHarness(backend);

    for (const platform of platformDefinitions) {
      const login = (code: string) => h.get(loginPath(platform, code));

      describe(platform.displayName, () => {
        it("creates a user, answering the platform's own fields plus a session and the user", async () => {
          const res = await login(`${freshPlayer("new")}.1`);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal(res.body.success, true);
          const data = res.body.data;
          const platformFields = Object.keys(platform.emptyResponseFields());
          assert.deepEqual(Object.keys(data).sort(), [...platformFields, "expiresIn", "refreshToken", "token", "user"].sort());
          assert.ok(data.session_key, "session_key is passed on");
          assert.match(data.user.username, new RegExp(`^mg_${platform.name}_[a-z0-9]+$`));
          assert.match(data.user.email, new RegExp(`^${platform.name}_[a-z0-9]+@players\\.invalid$`));
          assert.ok(data.user.openid, "the user is keyed by a platform id");
          assert.ok(Object.values(data).includes(data.user.openid), "the key is one of the platform's ids in data");
          const me = await h.get("/api/users/me", { authorization: `Bearer ${data.token}` });
          assert.equal(me.status, 200);
          assert.equal(me.body.data.id, data.user.id);
        });

        it("finds the returning player with a new code, and refuses a reused code with 401", async () => {
          const name = freshPlayer("back");
          const first = await login(`${name}.1`);
          const second = await login(`${name}.2`);
          assert.equal(second.status, 200);
          assert.equal(second.body.data.user.id, first.body.data.user.id);
          assertFailure(await login(`${name}.2`), 401, "platform_code_invalid");
        });

        it("keys a player without an openid by the unionid", async () => {
          const name = freshPlayer("noopenid");
          const first = await login(`${name}.1`);
          assert.equal(first.status, 200, JSON.stringify(first.body));
          const again = await login(`${name}.2`);
          assert.equal(again.body.data.user.id, first.body.data.user.id);
          assert.ok(first.body.data.user.openid);
        });

        it("answers 502 platform_identity_missing when the platform gives no usable id", async () => {
          const res = await login(`${freshPlayer("noid")}.1`);
          assertFailure(res, 502, "platform_identity_missing");
          assert.equal(res.body.data.token, "");
          assert.equal(res.body.data.user, null);
        });

        for (const outcome of ["invalid", "blocked", "ratelimited"] as const) {
          const expected = expectedClass(platform, outcome);
          it(`answers an ${outcome}… code with ${expected.status} ${expected.code}, keeping the platform's fields`, async () => {
            const res = await login(`${freshPlayer(outcome)}.1`);
            assertFailure(res, expected.status, expected.code);
            for (const field of Object.keys(platform.emptyResponseFields())) assert.ok(field in res.body.data, `data.${field}`);
            assert.equal(res.body.data.token, "");
          });
        }

        it("retries a busy platform a bounded number of times, then answers 502 platform_unavailable", async () => {
          h.simulator.resetStats();
          assertFailure(await login(`${freshPlayer("busy")}.1`), 502, "platform_unavailable");
          assert.equal(h.simulator.stats().code2session[platform.name], h.config.platformBusyRetries + 1);
        });

        it("answers a missing code with 400 invalid_request", async () => {
          assertFailure(await h.get(`/api/minigame/${platform.name}/login`), 400, "invalid_request");
          assertFailure(await h.get(`/api/minigame/${platform.name}/login?${platform.codeParams[0]}=`), 400, "invalid_request");
        });

        it("serves the platform's access token", async () => {
          const res = await h.get(`/api/minigame/${platform.name}/access_token`);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.ok(res.body.data.access_token);
          assert.ok(res.body.data.expires_in > 0);
        });
      });
    }

    it("answers rejected app credentials with 502 platform_misconfigured on every platform, login and token alike", async () => {
      const wrongSecrets = Object.fromEntries(platformDefinitions.map((p) => [`${p.name.toUpperCase()}_APP_SECRET`, "wrong-secret"]));
      const bad = await startHarness({ env: wrongSecrets, simulator: h.simulator });
      try {
        for (const platform of platformDefinitions) {
          assertFailure(await bad.get(loginPath(platform, `${freshPlayer("m")}.1`)), 502, "platform_misconfigured");
          assertFailure(await bad.get(`/api/minigame/${platform.name}/access_token`), 502, "platform_misconfigured");
        }
      } finally {
        await bad.close();
      }
    });
  });
}

describe("every platform with the embedded simulator (a plain npm start)", () => {
  let h: Harness;
  before(async () => {
    // Blank values mean "unset": PLATFORMS and base URLs fall back to their defaults, as with no settings at all.
    const unset = Object.fromEntries(platformDefinitions.flatMap((p) => [[`${p.name.toUpperCase()}_API_BASE_URL`, ""], [`${p.name.toUpperCase()}_APP_ID`, ""], [`${p.name.toUpperCase()}_APP_SECRET`, ""]]));
    h = await startHarness({ env: { ...unset, PLATFORM_SIMULATOR: "embedded", PLATFORMS: "" } });
  });
  after(() => h?.close());

  it("serves every registered platform", () => {
    assert.deepEqual(h.services.platformDefinitions.map((p) => p.name), platformDefinitions.map((p) => p.name));
    assert.ok(h.services.simulator, "the simulator runs in-process");
  });

  for (const platform of platformDefinitions) {
    it(`${platform.displayName}: logs in, fetches its token and answers every simulated error`, async () => {
      const ok = await h.get(loginPath(platform, `${freshPlayer("dev")}.1`));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.match(ok.body.data.user.username, new RegExp(`^mg_${platform.name}_`));
      assert.equal((await h.get(`/api/minigame/${platform.name}/access_token`)).status, 200);
      for (const outcome of ["invalid", "blocked", "ratelimited", "busy"] as const) {
        const expected = expectedClass(platform, outcome);
        assertFailure(await h.get(loginPath(platform, `${freshPlayer(outcome)}.1`)), expected.status, expected.code);
      }
      assertFailure(await h.get(loginPath(platform, `${freshPlayer("noid")}.1`)), 502, "platform_identity_missing");
    });
  }
});
