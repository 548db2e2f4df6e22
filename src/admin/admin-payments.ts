/**
 * `npm run admin -- orders | refund | grant`: a player's orders, a refund through the platform's
 * cancel, a grant of coins, through the same payment services, keys and shared caches as the servers.
 * Refunds and grants sign with the player's kept session key and use the shared platform token: with
 * the in-memory cache both live inside the server process, so they need Redis (session_key_missing otherwise).
 */
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import { Metrics } from "../observability/metrics";
import { buildPaymentServices, type PaymentServices } from "../server/payment-wiring";
import type { AdminPlatforms } from "./admin-platforms";

export async function openAdminPayments(platforms: AdminPlatforms, store: UserStore, logger: Logger): Promise<PaymentServices> {
  const { config, platformApps, custody, tokens } = platforms;
  return buildPaymentServices({ config, apps: config.apps, platformApps, store, custody, tokens, logger, metrics: new Metrics() });
}
