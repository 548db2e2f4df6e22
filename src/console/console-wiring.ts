/**
 * Turns the console on in the server process (app.config.ts) when CONSOLE_ENABLED says so: its
 * operator store on the configured database, the audit trail's hourly retention, and in production
 * the refusal to start without an operator who could sign in (create one first: npm run admin --
 * operator add <name> --role admin).
 */
import type express from "express";
import type { OperatorStore } from "../core/ports/operator-store";
import type { Services } from "../services/services";
import { AuditRetention } from "../services/console/audit-retention";
import { consoleRoutes } from "./console-router";

/** `openOperators` opens the store (server/operator-wiring.ts): the server knows the adapters, the console does not. */
export async function mountConsole(app: express.Express, services: Services, openOperators: () => Promise<OperatorStore>): Promise<() => Promise<void>> {
  const { config } = services;
  const operators = await openOperators();
  try {
    if (config.env === "production" && !(await operators.list()).some((op) => !op.disabled)) {
      throw new Error("CONSOLE_ENABLED=true but no operator can sign in: create one with npm run admin -- operator add <name> --role admin");
    }
    app.use(consoleRoutes(services, operators).router);
  } catch (err) {
    await operators.close().catch(() => undefined);
    throw err;
  }
  const retention = new AuditRetention(operators, services.logger, { retentionDays: config.console.auditRetentionDays });
  retention.start();
  return async () => {
    await retention.stop();
    await operators.close();
  };
}
