/**
 * The console's screens. Each is a client module at /console/screens/<id>.js (public/console/screens)
 * and, where it needs them, JSON routes of its own under /console/api. The economy and leaderboard
 * screens plug in here when those services exist: one entry, one routes function, one client module.
 */
import type { Router } from "express";
import type { OperatorRole } from "../core/ports/operator-store";
import type { Services } from "../services/services";
import type { ConsoleGuard } from "./console-guard";
import type { AuditLog } from "../services/console/audit-log";

export interface ConsoleScreen {
  id: string;
  title: string;
  /** The least role that sees the screen in the navigation. */
  role: OperatorRole;
  /** Adds the screen's JSON routes (read with guard.read, change with guard.change). */
  routes?(router: Router, context: ScreenContext): void;
  /** Whether the screen applies to this deployment (e.g. the economy only once it is wired). */
  available?(services: Services): boolean;
}

export interface ScreenContext {
  services: Services;
  guard: ConsoleGuard;
  audit: AuditLog;
}

/** Built-in screens whose routes live in console-router.ts and console-player-routes.ts. */
export const BUILT_IN_SCREENS: ConsoleScreen[] = [
  { id: "players", title: "Players", role: "viewer" },
  { id: "orders", title: "Orders", role: "viewer" },
  { id: "health", title: "Health", role: "viewer" },
  { id: "apps", title: "Apps & settings", role: "viewer" },
  { id: "audit", title: "Audit", role: "support" },
  { id: "operators", title: "Operators", role: "admin" },
];

/** Screens added by other capabilities (economy, leaderboards): append an entry in console-router.ts's list. */
