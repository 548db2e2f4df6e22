/**
 * The console's economy screens: a player's wallet and inventory per app (viewer), the catalog in
 * use with its version (viewer) and a new version upload (admin, checked by checkCatalog and stored
 * as the next version, which every process takes up on its next catalog refresh), and mail with
 * attachments to one player or every player of an app (support within CONSOLE_SUPPORT_GRANT_MAX,
 * admin) through the reward sources' MailService, so the claim grants once per player.
 */
import type { Router } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { parseInput } from "../http/validate";
import { appQuery, knownApp, knownPlayer } from "./console-apps";
import { catalogHistoryRoutes } from "./console-catalog";
import type { ConsoleScreen } from "./console-screens";

import { userIdParam } from "./console-schemas";

const appId = z.string().min(1).max(64).default("default");
const amount = z.int().min(1).max(999_999_999);
export const catalogUploadBody = z.object({
  app: appId,
  /** The version the operator edited; another operator's newer version refuses the upload (409). */
  expectedVersion: z.int().min(0).max(1_000_000_000).optional(),
  catalog: z.unknown(),
});
export const mailSendBody = z
  .object({
    app: appId,
    /** One player, or null for every player of the app. */
    userId: z.string().min(1).max(128).nullable(),
    title: z.string().trim().min(1).max(100),
    body: z.string().max(2000).default(""),
    currencies: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,32}$/), amount).default({}),
    items: z.array(z.object({ itemId: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/), count: amount })).max(50).default([]),
    expiresAt: z.iso.datetime({ offset: true }).optional(),
    mailId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 of A-Z a-z 0-9 _ -: the same id again is the same mail").optional(),
  })
  .refine((b) => Object.keys(b.currencies).length + b.items.length > 0, "attach at least one currency or item");

export const economyScreen: ConsoleScreen = {
  id: "economy",
  title: "Economy",
  role: "viewer",
  available: (services) => services.economy !== undefined,
  routes(router: Router, context) {
    const { services, guard } = context;
    catalogHistoryRoutes(router, context);
    router.get("/economy/players/:userId", ...guard.read("viewer", async (req) => {
      const userId = await knownPlayer(services, parseInput(userIdParam, req.params).userId);
      const app = knownApp(services, parseInput(appQuery, req.query).app);
      const state = await services.economy.store.state(app, userId);
      return { app, apps: await services.economy.store.appsOf(userId), balances: state.balances, items: Object.entries(state.items).map(([itemId, count]) => ({ itemId, count })) };
    }));
    router.get("/economy/catalog", ...guard.read("viewer", async (req) => {
      const app = knownApp(services, parseInput(appQuery, req.query).app);
      await services.economy.catalogs.refresh();
      const { version, catalog } = services.economy.catalogs.get(app);
      return { app, version, catalog };
    }));
    router.post("/economy/catalog", ...guard.change("catalog.replace", "admin", async (req, session) => {
      const body = parseInput(catalogUploadBody, req.body ?? {});
      const app = knownApp(services, body.app);
      const saved = await services.economy.catalogs.replace(app, body.catalog, `console:${session.operator.name}`, body.expectedVersion);
      return { target: app, detail: { app, version: saved.version }, result: { app, version: saved.version, catalog: saved.catalog } };
    }));
  },
};

export const mailScreen: ConsoleScreen = {
  id: "mail",
  title: "Mail",
  role: "support",
  available: (services) => services.rewardSources?.mail !== undefined,
  routes(router: Router, { services, guard }) {
    router.post("/mail", ...guard.change("mail.send", "support", async (req, session) => {
      const body = parseInput(mailSendBody, req.body ?? {});
      const app = knownApp(services, body.app);
      if (body.userId !== null) await knownPlayer(services, body.userId);
      await services.economy.catalogs.refuseUnknown(app, body);
      const total = Object.values(body.currencies).reduce((sum, n) => sum + n, 0) + body.items.reduce((sum, i) => sum + i.count, 0);
      const max = services.config.console.supportGrantMax;
      if (session.operator.role === "support" && total > max) {
        throw new AppError("console_role_forbidden", { message: `A support operator may attach at most ${max} in all`, data: { needs: "admin" } });
      }
      const { mail, created } = await services.rewardSources.mail.send({
        app,
        userId: body.userId,
        title: body.title,
        body: body.body,
        attachments: { currencies: body.currencies, items: body.items },
        expiresAt: body.expiresAt,
        sender: `console:${session.operator.name}`,
        mailId: body.mailId,
      });
      const { sender: _sender, ...view } = mail;
      return { target: body.userId ?? `app:${app}`, outcome: created ? "ok" : "repeated", detail: { app, mailId: mail.mailId, title: mail.title, currencies: body.currencies, items: body.items, expiresAt: mail.expiresAt, created }, result: { ...view, created } };
    }, { recordAttempt: true }));
  },
};
