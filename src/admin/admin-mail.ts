/**
 * `npm run admin -- mail send …`: an operator's mail with attachments, to one player or to every
 * player of an app (docs/economy-rewards.md). The mail is one record either way; players claim
 * its attachments once each. Prints the mail as JSON; one audit line goes to stderr.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import pino from "pino";
import { createRewardStores, type RewardStores } from "../adapters/store/create-reward-stores";
import type { AppConfig } from "../config/config";
import { ConfigError, parseConfig } from "../config/config";
import { readSettings } from "../config/settings-files";
import { DEFAULT_APP } from "../core/apps";
import { AppError } from "../core/errors";
import { createLogger } from "../logging/logger";
import { sendMail } from "../services/rewards/mail-service";
import { openAdminContext } from "./admin-context";
import { adminEnvironment, describeSettings } from "./admin-settings";
import { recordCliCommand } from "./admin-operators";

export const MAIL_USAGE = `usage: npm run admin -- mail send (--to <user> | --all) --title <text> [--body <text>] [--app <key>]
       [--currency <id>=<amount> …] [--item <id>=<count> …] [--expires <ISO 8601 time>] [--mail-id <id>] [--by <name>]
  <user> as for the other commands (user id, username, email, <platform>:<platform id>)
  --all writes one mail every player of the app lists; --mail-id makes a repeated send the same mail`;

/** `name=positive integer` pairs, or the first problem. */
export function parseAmounts(pairs: string[], what: string): Record<string, number> | string {
  const out: Record<string, number> = {};
  for (const pair of pairs) {
    const match = /^([A-Za-z0-9_.:-]{1,128})=([1-9][0-9]{0,8})$/.exec(pair);
    if (!match) return `--${what} must be <id>=<positive whole number>, got "${pair}"`;
    out[match[1]] = (out[match[1]] ?? 0) + Number(match[2]);
  }
  return out;
}

export async function runMailCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        to: { type: "string" },
        all: { type: "boolean" },
        title: { type: "string" },
        body: { type: "string" },
        app: { type: "string" },
        currency: { type: "string", multiple: true },
        item: { type: "string", multiple: true },
        expires: { type: "string" },
        "mail-id": { type: "string" },
        by: { type: "string" },
      },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== "send") return usage('the mail command is "mail send"');
  if (Boolean(values.to) === Boolean(values.all)) return usage("mail send needs exactly one of --to <user> and --all");
  const currencies = parseAmounts(values.currency ?? [], "currency");
  const items = parseAmounts(values.item ?? [], "item");
  if (typeof currencies === "string") return usage(currencies);
  if (typeof items === "string") return usage(items);
  if (values.expires !== undefined && Number.isNaN(Date.parse(values.expires))) return usage("--expires must be an ISO 8601 time, e.g. 2030-01-31T00:00:00Z");

  let config;
  const environment = adminEnvironment();
  try {
    config = parseConfig(readSettings(environment.env));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${describeSettings(environment)}\n${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const app = values.app ?? DEFAULT_APP;
  if (!config.apps.some((a) => a.key === app)) return usage(`unknown app "${app}"`);
  const stderr = pino.destination({ fd: 2, sync: true });
  const logger = createLogger({ level: config.logLevel, destination: stderr, name: "admin" });
  const audit = createLogger({ level: "info", destination: stderr, name: "admin-audit" });
  const by = values.by?.trim() || os.userInfo().username;
  const context = await openAdminContext(config, logger, audit);
  const stores = await createRewardStores(config.store).catch(async (err: unknown) => {
    await context.close();
    throw err;
  });
  const auditDetail = { app, to: values.to ?? "all", mailId: values["mail-id"], currencies, items };
  try {
    const userId = values.to ? (await context.admin.resolve(values.to)).id : null;
    await (await context.economy()).catalogs.refuseUnknown(app, { currencies, items: Object.keys(items).map((itemId) => ({ itemId })) });
    const { mail, created } = await sendMail(
      stores,
      {
        app,
        userId,
        title: values.title ?? "",
        body: values.body,
        attachments: { ...(Object.keys(currencies).length ? { currencies } : {}), ...(Object.keys(items).length ? { items: Object.entries(items).map(([itemId, count]) => ({ itemId, count })) } : {}) },
        expiresAt: values.expires,
        sender: by,
        mailId: values["mail-id"],
      },
      Date.now(),
      config.rewards.mailDefaultExpiryDays,
    );
    audit.info({ event: "admin_action", by, action: "mail", app, mailId: mail.mailId, userId, created }, "admin mail");
    await recordCliCommand(config, logger, { by, command: "mail", target: userId ?? `app:${app}`, outcome: created ? "ok" : "repeated", detail: { ...auditDetail, mailId: mail.mailId } });
    process.stdout.write(`${JSON.stringify({ created, mail }, null, 2)}\n`);
    return 0;
  } catch (err) {
    const refused = err instanceof AppError && err.status < 500;
    await recordCliCommand(config, logger, { by, command: "mail", target: values.to ?? `app:${app}`, outcome: refused ? "refused" : "failed", detail: { ...auditDetail, code: err instanceof AppError ? err.code : "internal_error" } });
    if (err instanceof AppError && err.status < 500) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await stores.close();
    await context.close();
  }
}

/** The reward stores for one action of another command (export, erase), closed after it. */
export async function withRewardStores<T>(config: AppConfig, use: (stores: RewardStores) => Promise<T>): Promise<T> {
  const stores = await createRewardStores(config.store);
  try {
    return await use(stores);
  } finally {
    await stores.close();
  }
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\n${MAIL_USAGE}\n`);
  return 2;
}
