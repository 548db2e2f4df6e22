/**
 * `npm run admin -- <command> <user> [options]`: operators' actions on one user, with the server's
 * own settings, store and cache, against a running cluster. Results go to stdout as JSON; one
 * audit line per action goes to stderr (JSON, like the server's log).
 */
import "../config/node-floor"; // first: on Node < 22 it says so and exits, before a dependency fails to load
import os from "node:os";
import { parseArgs } from "node:util";
import pino from "pino";
import { ConfigError, parseConfig } from "../config/config";
import { adminEnvironment, describeSettings } from "./admin-settings";
import { readSettings } from "../config/settings-files";
import { AppError } from "../core/errors";
import { createLogger } from "../logging/logger";
import { DEFAULT_APP } from "../core/apps";
import { openAdminContext } from "./admin-context";
import { catalogCommand, parseGrantParts } from "./admin-economy";
import { parseTemplateData } from "./admin-notify";
import { ORDER_STATES, type Order, type OrderState } from "../core/ports/order-ledger";
import { presentOrder } from "../services/payments/order-view";
import { LEADERBOARD_USAGE, runLeaderboardCommand } from "./admin-leaderboards";
import { runSavesCommand, SAVES_USAGE } from "./admin-saves";
import { MAIL_USAGE, runMailCommand, withRewardStores } from "./admin-mail";
import { OPERATOR_USAGE, recordCliCommand, runOperatorCommand } from "./admin-operators";
import { AUDIT_USAGE, runAuditCommand } from "./admin-audit";
import { ANALYTICS_USAGE, eraseAnalyticsEvents, runAnalyticsCommand } from "./admin-analytics";
import { LIVEOPS_USAGE, runLiveOpsCommand } from "./admin-liveops";
import { eraseLeaderboardRecords, eraseLiveOps } from "./leaderboard-export";
import { eraseSupportMessages } from "./admin-support";

const USAGE = `usage: npm run admin -- <command> <user> [--by <name>]
  <user> is a user id, a username, an email, or <platform>:<platform id> (e.g. wechat:oGZUI0eg…)
commands:
  find <user>                                  show the user, its restriction, identities and session
  disable <user> --reason <text> [--until <ISO 8601 time>]
                                               refuse logins, tokens and room joins (until the time)
  enable <user>                                lift a disable or ban
  end-sessions <user>                          log the user out everywhere, closing its room connections
  erase <user>                                 delete the user, its identities and its session for good
  export <user>                                everything stored about the user in every store (account, sessions,
                                               orders…), as JSON (no password hash)
  notify <user> <template id> --platform <name> --data <field>=<text> [--data …] [--page <page>] [--app <key>]
                                               send one subscribe message (uses one of the player's grants)
  orders <user> [--state <state>]              the player's orders, newest first (docs/payments.md)
  refund <user> <orderId>                      give a coin spend's coins back (WeChat cancelpay; idempotent)
  grant <user> <coins> --platform <name> --grant-id <id> [--app <key>] [--reason <text>]
                                               give coins once per grant id (WeChat present, Douyin add_coin)
  grant <user> --grant-id <id> [--currency <id>=<n> …] [--item <id>=<n> …] [--app <key>] [--reason <text>]
                                               give soft currency and items once per grant id (docs/economy.md)
  catalog show|load <file>|check <file> [--app <key>] [--expect-version <n>]
                                               the app's live catalog; store a new version (every server takes it)
leaderboards (npm run admin -- leaderboards <command>; docs/leaderboards.md):
${LEADERBOARD_USAGE}
cloud saves (npm run admin -- saves <command>; docs/saves.md):
${SAVES_USAGE}
  mail send (--to <user> | --all) --title <text> …   mail with attachments (see "mail send" below)
${OPERATOR_USAGE}
${AUDIT_USAGE}
analytics (docs/analytics.md):
${ANALYTICS_USAGE}
${LIVEOPS_USAGE}
settings: as the server's. With NODE_ENV unset: production (arena.env < arena.local.env < environment)
  where arena.local.env exists, else development (.env < environment), as \`npm start\` reads them`;

const COMMANDS = ["find", "disable", "enable", "end-sessions", "erase", "export", "notify", "orders", "refund", "grant", "catalog"] as const;
/** Commands that take one more positional after the user. */
const WITH_ARGUMENT = new Set(["notify", "refund", "grant"]);
/** Commands whose one more positional is optional (an economy grant has no coins; catalog show has no file). */
const OPTIONAL_ARGUMENT = new Set(["grant", "catalog"]);
const NOTIFY_OPTIONS = ["platform", "app", "page", "data"] as const;
type Command = (typeof COMMANDS)[number];

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "leaderboards") return runLeaderboardCommand(argv.slice(1));
  if (argv[0] === "saves") return runSavesCommand(argv.slice(1));
  if (argv[0] === "analytics") return runAnalyticsCommand(argv.slice(1));
  // Mail names no single user (--to or --all): its own options and usage (admin-mail.ts).
  if (argv[0] === "mail") return runMailCommand(argv.slice(1));
  if (argv[0] === "operator") return operatorCommand(argv.slice(1), runOperatorCommand);
  if (argv[0] === "audit") return operatorCommand(argv.slice(1), runAuditCommand);
  if (argv[0] === "liveops") return operatorCommand(argv.slice(1), runLiveOpsCommand);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        reason: { type: "string" },
        until: { type: "string" },
        by: { type: "string" },
        help: { type: "boolean", short: "h" },
        platform: { type: "string" },
        app: { type: "string" },
        page: { type: "string" },
        data: { type: "string", multiple: true },
        state: { type: "string" },
        "grant-id": { type: "string" },
        currency: { type: "string", multiple: true },
        item: { type: "string", multiple: true },
        "expect-version": { type: "string" },
      },
    });
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n${MAIL_USAGE}\n`);
    return 0;
  }
  const [command, reference, ...extra] = positionals;
  if (!COMMANDS.includes(command as Command)) return usageError(command ? `unknown command "${command}"` : "a command is required");
  if (!reference) return usageError("exactly one user is required");
  const economyGrant = command === "grant" && (values.currency !== undefined || values.item !== undefined);
  const grantParts = parseGrantParts(values.currency ?? [], values.item ?? []);
  if (typeof grantParts === "string") return usageError(grantParts);
  if ((values.currency || values.item) && command !== "grant") return usageError("--currency and --item belong to grant");
  if (economyGrant && (extra.length > 0 || values.platform)) return usageError("grant gives either coins (<coins> --platform) or soft currency and items (--currency, --item), not both");
  if (OPTIONAL_ARGUMENT.has(command) && extra.length === 0 && (economyGrant || command === "catalog")) {
    // fine: no further argument
  } else if (WITH_ARGUMENT.has(command) || command === "catalog" ? extra.length !== 1 : extra.length > 0) {
    return usageError(WITH_ARGUMENT.has(command) ? `${command} needs <user> and one more argument (see usage)` : "exactly one user is required");
  }
  const paymentProblem = economyGrant
    ? /^[A-Za-z0-9_-]{1,64}$/.test(values["grant-id"] ?? "") ? undefined : "grant needs --grant-id <1-64 of A-Z a-z 0-9 _ ->: the same id again is the same grant"
    : paymentUsageProblem(command, extra[0], values);
  if (paymentProblem) return usageError(paymentProblem);
  if (command !== "notify" && command !== "grant" && !(command === "catalog" && values.app !== undefined && !values.platform && !values.page && !values.data) && NOTIFY_OPTIONS.some((o) => values[o] !== undefined)) {
    return usageError("--platform, --app, --page and --data belong to notify");
  }
  const expectVersion = values["expect-version"] === undefined ? undefined : Number(values["expect-version"]);
  if (expectVersion !== undefined && (command !== "catalog" || !Number.isSafeInteger(expectVersion) || expectVersion < 0)) return usageError("--expect-version <n> belongs to catalog load");
  const templateData = command === "notify" ? parseTemplateData(values.data ?? []) : {};
  if (typeof templateData === "string") return usageError(templateData);
  if (command === "notify" && !values.platform) return usageError("notify needs --platform <name>");
  if (command === "disable" && !values.reason?.trim()) return usageError("disable needs --reason <text>");
  if (command !== "disable" && (values.until !== undefined || (values.reason !== undefined && command !== "grant"))) {
    return usageError("--reason and --until belong to disable");
  }
  const until = values.until === undefined ? null : Date.parse(values.until);
  if (until !== null && Number.isNaN(until)) return usageError(`--until must be an ISO 8601 time, e.g. 2030-01-31T00:00:00Z`);
  const by = values.by?.trim() || os.userInfo().username;

  let config;
  const environment = adminEnvironment();
  try {
    config = parseConfig(readSettings(environment.env));
  } catch (err) {
    if (err instanceof ConfigError) {
      // The first line says which settings were read, so a refusal is never a riddle.
      process.stderr.write(`${describeSettings(environment)}\n${err.message}\n`);
      return 1;
    }
    throw err;
  }
  // Synchronous stderr: the audit line is written before the process exits.
  const stderr = pino.destination({ fd: 2, sync: true });
  const logger = createLogger({ level: config.logLevel, destination: stderr, name: "admin" });
  const audit = createLogger({ level: "info", destination: stderr, name: "admin-audit" });
  const context = await openAdminContext(config, logger, audit);
  const openEconomy = context.economy;
  if (!context.reachesServers && !["find", "export", "notify", "catalog"].includes(command) && !economyGrant) {
    process.stderr.write("note: in-memory cache: sessions live inside the server process; this reaches the store only\n");
  }
  /** The audit line's details of a payment or notify action, written once its outcome is known. */
  const detail: Record<string, unknown> = {};
  /** A grant id used before: nothing new was given, and the audit says so. */
  let repeated = false;
  const recordDone = () => audit.info({ event: "admin_action", by, action: command, ...detail, outcome: "done" }, `admin ${command}`);
  const done = (order: Order) => {
    recordDone();
    return presentOrder(order);
  };
  try {
    const { admin } = context;
    const restriction = { reason: values.reason?.trim() ?? "", until: until === null ? null : new Date(until).toISOString() };
    const actions: Record<Command, () => Promise<unknown>> = {
      find: () => admin.find(reference, by),
      disable: () => admin.disable(reference, restriction, by),
      enable: () => admin.enable(reference, by),
      "end-sessions": () => admin.endSessions(reference, by),
      // The economy's part first: an erased user's ledger cannot be found by the user any more.
      erase: async () => {
        const { store } = await openEconomy();
        context.trackErasesIn(store.erasures);
        context.onErase((userId) => store.erase(userId));
        context.onErase((userId) => withRewardStores(config, (stores) => stores.eraseUser(userId)));
        context.onErase((userId) => eraseLeaderboardRecords(config, logger, userId));
        context.onErase(async (userId) => (await context.saves()).erase(userId));
        context.onErase((userId) => eraseAnalyticsEvents(config, userId));
        context.onErase((userId) => eraseSupportMessages(config, userId));
        context.onErase((userId) => eraseLiveOps(config, userId));
        return admin.erase(reference, by);
      },
      export: () => admin.export(reference, by),
      catalog: () => catalogCommand(openEconomy, reference, extra[0], { app: values.app ?? DEFAULT_APP, by, expectVersion }, audit),
      notify: async () => {
        const { id } = await admin.resolve(reference);
        const [platform, app, templateId] = [values.platform!, values.app ?? DEFAULT_APP, extra[0]];
        Object.assign(detail, { userId: id, platform, app, templateId });
        const sent = await context.subscribeMessages.send(platform, app, id, { templateId, page: values.page, data: templateData });
        recordDone();
        return sent;
      },
      orders: async () => {
        const { id } = await admin.resolve(reference);
        const { ledger } = await context.payments();
        return (await ledger.listByUser(id, { state: values.state as OrderState | undefined, limit: 100 })).map(presentOrder);
      },
      refund: async () => {
        const { id } = await admin.resolve(reference);
        Object.assign(detail, { userId: id, orderId: extra[0] });
        return done(await (await context.payments()).operations.refund(id, extra[0]));
      },
      grant: async () => {
        const { id } = await admin.resolve(reference);
        if (economyGrant) {
          const app = values.app ?? DEFAULT_APP;
          if (!config.apps.some((a) => a.key === app)) throw new AppError("unknown_app", { message: `no app "${app}"` });
          const grantId = values["grant-id"]!;
          audit.info({ event: "admin_action", by, action: "grant", userId: id, app, grantId, ...grantParts }, "admin grant");
          const reason = values.reason?.trim() || "operator grant";
          const economy = await openEconomy();
          await economy.catalogs.refuseUnknown(app, grantParts);
          const granted = await economy.rewards.grant({ appId: app, userId: id, source: "operator", sourceId: grantId, reason, ...grantParts });
          repeated = !granted.granted;
          return granted;
        }
        const services = await context.payments();
        const platform = values.platform!;
        const appKey = values.app ?? DEFAULT_APP;
        const appId = config.apps.find((a) => a.key === appKey)?.platforms[platform]?.appId;
        if (!appId) throw new AppError("unknown_app", { message: `app "${appKey}" is not on ${platform}` });
        const grantId = values["grant-id"]!;
        const reason = values.reason?.trim() || "operator grant";
        Object.assign(detail, { userId: id, platform, app: appKey, grantId, coins: Number(extra[0]), reason });
        const { order, created } = await services.operations.grantOnce({ userId: id, platform, appId }, grantId, Number(extra[0]), reason);
        repeated = !created;
        return done(order);
      },
    };
    const result = await actions[command as Command]();
    await recordCliCommand(config, logger, { by, command, target: reference, outcome: repeated ? "repeated" : "ok", detail: cliDetail(command, extra[0], values) });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    // What was tried is audited with how it ended: a refusal is not an action taken.
    const code = err instanceof AppError ? err.code : "internal_error";
    const outcome = err instanceof AppError && err.status < 500 ? "refused" : "failed";
    // `error`, not `code`: the logger redacts `code` (a platform login code is a credential).
    audit.info({ event: "admin_action", by, action: command, reference, ...detail, outcome, error: code }, `admin ${command} ${outcome}`);
    await recordCliCommand(config, logger, { by, command, target: reference, outcome, detail: { ...cliDetail(command, extra[0], values), code } });
    if (err instanceof AppError && err.status < 500) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await context.close();
  }
}

/** The public facts of a command for its audit entry: never template data, which may be personal. */
function cliDetail(command: string, argument: string | undefined, values: { reason?: string; until?: string; platform?: string; app?: string; state?: string; "grant-id"?: string; currency?: string[]; item?: string[] }): Record<string, unknown> {
  const detail: Record<string, unknown> = {};
  if (command === "refund") detail.orderId = argument;
  if (command === "grant") Object.assign(detail, { coins: argument === undefined ? undefined : Number(argument), grantId: values["grant-id"], platform: values.platform, currency: values.currency, item: values.item, app: values.app });
  if (command === "catalog") Object.assign(detail, { action: argument === undefined ? "show" : "load or check", app: values.app });
  if (command === "notify") detail.templateId = argument;
  if (values.reason) detail.reason = values.reason;
  if (values.until) detail.until = values.until;
  return detail;
}

/** The console's own commands (operator, audit): settings read here, the runner does the rest. */
async function operatorCommand(argv: string[], runner: typeof runOperatorCommand): Promise<number> {
  let config;
  try {
    config = parseConfig(readSettings(adminEnvironment().env));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const stderr = pino.destination({ fd: 2, sync: true });
  const logger = createLogger({ level: "warn", destination: stderr, name: "admin" });
  return runner(argv, config, logger, (t) => process.stdout.write(t), (t) => process.stderr.write(t));
}

/** What is wrong with a payment command's arguments, or undefined. */
function paymentUsageProblem(command: string, argument: string | undefined, values: { state?: string; platform?: string; "grant-id"?: string }): string | undefined {
  if (command !== "orders" && values.state !== undefined) return "--state belongs to orders";
  if (values.state !== undefined && !(ORDER_STATES as readonly string[]).includes(values.state)) return `--state must be one of ${ORDER_STATES.join(", ")}`;
  if (command !== "grant") return values["grant-id"] !== undefined ? "--grant-id belongs to grant" : undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(argument ?? "")) return "grant needs a whole number of coins (1 to 999999999)";
  if (!values.platform) return "grant needs --platform <name>";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(values["grant-id"] ?? "")) return "grant needs --grant-id <1-64 of A-Z a-z 0-9 _ ->: the same id again is the same grant";
  return undefined;
}

function usageError(problem: string): number {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`admin failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
