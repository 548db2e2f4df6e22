/**
 * Operators managed in the console (issue 49): an admin adds and resets operators, each answer with
 * a one-time password and the otpauth link drawn as a QR code; a code from the authenticator confirms
 * the enrolment (a wrong one does not); support is refused; the last active admin stays; nothing
 * secret (password, seed, link, code) reaches the audit trail or the logs.
 */
import assert from "node:assert/strict";
import jsQR from "jsqr";
import QRCode from "qrcode";
import { totpAt } from "../../src/services/console/totp";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

/** The text a QR code's data URL holds, read back from its modules (the encoder's own matrix, drawn to pixels). */
function decodeQr(uri: string): string | undefined {
  const qr = QRCode.create(uri, { errorCorrectionLevel: "M" });
  const scale = 4;
  const margin = 4;
  const size = (qr.modules.size + margin * 2) * scale;
  const pixels = new Uint8ClampedArray(size * size * 4).fill(255);
  for (let y = 0; y < qr.modules.size; y++)
    for (let x = 0; x < qr.modules.size; x++)
      if (qr.modules.get(y, x))
        for (let dy = 0; dy < scale; dy++)
          for (let dx = 0; dx < scale; dx++) {
            const at = (((y + margin) * scale + dy) * size + (x + margin) * scale + dx) * 4;
            pixels[at] = pixels[at + 1] = pixels[at + 2] = 0;
          }
  return jsQR(pixels, size, size)?.data;
}

describe("console: operators added, reset and enrolled with a QR code", function () {
  this.timeout(60_000);
  let h: Harness;
  let admin: ConsoleClient;

  before(async () => {
    const simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator });
    const op = await addOperator(h.config, unique("root"), "admin");
    admin = new ConsoleClient(h.baseUrl);
    await admin.signIn(op, OPERATOR_PASSWORD);
  });
  after(async () => {
    await h?.close();
    await h?.simulator.close();
  });

  it("adds an operator with a QR code of its otpauth link; a code confirms it only when valid; the operator signs in with it", async () => {
    const name = unique("dana");
    const added = await admin.call("POST", "/operators", { name, role: "support", totp: true });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const { operator, initialPassword, totpUri, totpQr } = added.body.data;
    assert.equal(operator.name, name);
    assert.equal(operator.totp, true);
    assert.match(totpUri, /^otpauth:\/\/totp\//);
    const png = Buffer.from(String(totpQr).replace(/^data:image\/png;base64,/, ""), "base64");
    assert.equal(png.subarray(1, 4).toString(), "PNG");
    assert.equal(String(totpQr), await QRCode.toDataURL(totpUri, { errorCorrectionLevel: "M", margin: 2, width: 240 }), "the image is the QR code of the link");
    assert.equal(decodeQr(totpUri), totpUri);
    const secret = new URL(totpUri).searchParams.get("secret")!;

    const wrong = String((Number(totpAt(secret, Date.now())) + 1) % 1_000_000).padStart(6, "0");
    assert.equal((await admin.call("POST", `/operators/${name}/totp/confirm`, { code: wrong })).status, 400);
    assert.equal((await admin.call("POST", `/operators/${name}/totp/confirm`, { code: "12ab56" })).status, 400);
    const code = totpAt(secret, Date.now());
    const confirmed = await admin.call("POST", `/operators/${name}/totp/confirm`, { code });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.deepEqual(confirmed.body.data, { confirmed: true });
    assert.equal((await admin.call("POST", `/operators/${name}/totp/confirm`, { code })).status, 400, "a spent code does not confirm twice");

    const dana = new ConsoleClient(h.baseUrl);
    // The confirming code is spent: the sign-in takes the next step's code.
    const next = totpAt(secret, Date.now() + 30_000);
    const signIn = await dana.call("POST", "/session", { name, password: initialPassword, totp: next });
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));

    const audit = await admin.call("GET", `/audit?target=${name}`);
    const entries = audit.body.data as Array<{ action: string; outcome: string }>;
    assert.deepEqual(
      entries.filter((e) => e.action.startsWith("operator.")).map((e) => [e.action, e.outcome]).reverse(),
      [["operator.add", "ok"], ["operator.totp_confirm", "refused"], ["operator.totp_confirm", "refused"], ["operator.totp_confirm", "ok"], ["operator.totp_confirm", "refused"]],
    );
    const everything = JSON.stringify(entries) + h.logs.join("");
    for (const secretText of [initialPassword, secret, totpUri, encodeURIComponent(totpUri), code, next]) assert.ok(!everything.includes(secretText), `not in the audit or logs: ${secretText.slice(0, 4)}…`);
  });

  it("resets an operator: a new one-time password, a new seed only when asked; the old password stops working", async () => {
    const op = await addOperator(h.config, unique("eli"), "viewer");
    const plain = await admin.call("POST", `/operators/${op.name}/reset`, {});
    assert.equal(plain.status, 200);
    assert.equal(plain.body.data.totpUri, undefined);
    assert.equal(plain.body.data.totpQr, undefined);
    const withTotp = await admin.call("POST", `/operators/${op.name}/reset`, { totp: true });
    assert.match(withTotp.body.data.totpQr, /^data:image\/png;base64,/);
    assert.equal(decodeQr(withTotp.body.data.totpUri), withTotp.body.data.totpUri);
    const old = await new ConsoleClient(h.baseUrl).call("POST", "/session", { name: op.name, password: plain.body.data.initialPassword });
    assert.equal(old.status, 401);
  });

  it("refuses support (audited) and keeps the last active admin", async () => {
    const support = await addOperator(h.config, unique("sup"), "support");
    const client = new ConsoleClient(h.baseUrl);
    await client.signIn(support, OPERATOR_PASSWORD);
    for (const [path, body] of [["/operators", { name: unique("x"), role: "admin" }], [`/operators/${support.name}/reset`, {}], [`/operators/${support.name}/role`, { role: "admin" }]] as const) {
      const refused = await client.call("POST", path, body);
      assert.equal(refused.status, 403, path);
      assert.equal(refused.body.data.code, "console_role_forbidden");
    }
    const audit = await admin.call("GET", `/audit?actor=${support.name}&outcome=refused`);
    assert.deepEqual(audit.body.data.map((e: { action: string }) => e.action).sort(), ["operator.add", "operator.reset", "operator.role"]);

    const list = (await admin.call("GET", "/operators")).body.data as Array<{ name: string; role: string; disabled: boolean }>;
    for (const other of list.filter((o) => o.role === "admin" && !o.disabled)) {
      const session = (await admin.call("GET", "/session")).body.data;
      if (other.name !== session.operator.name) assert.equal((await admin.call("POST", `/operators/${other.name}/role`, { role: "viewer" })).status, 200);
    }
    const me = (await admin.call("GET", "/session")).body.data.operator.name;
    const demote = await admin.call("POST", `/operators/${me}/role`, { role: "support" });
    assert.equal(demote.status, 409);
    assert.equal(demote.body.data.code, "last_admin");
  });
});
