/**
 * Operators added and reset in the console (admin only), with the TOTP enrolment beside them: the
 * answer carries the one-time password and the otpauth link as a QR code, shown once to the admin
 * who made it; the new operator scans it and a code from their authenticator confirms it worked.
 * The audit keeps who did what to whom, never the password, the link or the code.
 */
import { Router } from "express";
import QRCode from "qrcode";
import { AppError } from "../core/errors";
import { parseInput } from "../http/validate";
import type { ConsoleSessions } from "../services/console/console-sessions";
import type { OneTimeCredentials, OperatorAccounts } from "../services/console/operator-accounts";
import type { ConsoleGuard } from "./console-guard";
import { addOperatorBody, operatorParam, resetOperatorBody, totpCodeBody } from "./console-schemas";

/** The credentials with the link drawn as a QR code (a PNG data URL, which the console's CSP allows as an image). */
async function withQr(credentials: OneTimeCredentials): Promise<OneTimeCredentials & { totpQr?: string }> {
  if (!credentials.totpUri) return credentials;
  return { ...credentials, totpQr: await QRCode.toDataURL(credentials.totpUri, { errorCorrectionLevel: "M", margin: 2, width: 240 }) };
}

export function consoleOperatorRoutes(accounts: OperatorAccounts, sessions: ConsoleSessions, guard: ConsoleGuard): Router {
  const api = Router();
  api.post("/operators", ...guard.change("operator.add", "admin", async (req) => {
    const { name, role, totp } = parseInput(addOperatorBody, req.body ?? {});
    const created = await accounts.add(name, role, { totp });
    return { target: created.operator.name, detail: { role, totp: created.operator.totp }, result: await withQr(created) };
  }));
  api.post("/operators/:name/reset", ...guard.change("operator.reset", "admin", async (req) => {
    const { name } = parseInput(operatorParam, req.params);
    const { totp } = parseInput(resetOperatorBody, req.body ?? {});
    const reset = await accounts.reset(name, { totp });
    return { target: reset.operator.name, detail: { newTotp: reset.totpUri !== undefined }, result: await withQr(reset) };
  }));
  api.post("/operators/:name/totp/confirm", ...guard.change("operator.totp_confirm", "admin", async (req) => {
    const { name } = parseInput(operatorParam, req.params);
    const { code } = parseInput(totpCodeBody, req.body ?? {});
    const op = await accounts.require(name);
    if (!op.totpSecret) throw new AppError("invalid_request", { message: `${op.name} has no second factor to confirm`, data: { fields: [{ field: "code", message: "no second factor set up" }] } });
    if (!(await sessions.confirmTotp(op.id, code))) {
      throw new AppError("invalid_request", { message: "code: not the current code of this operator's authenticator", data: { fields: [{ field: "code", message: "not the current code" }] } });
    }
    return { target: op.name, result: { confirmed: true } };
  }));
  return api;
}
