import { Router, type Request, type Response } from "express";
import type { Cache } from "../core/ports/cache";
import type { UserStore } from "../core/ports/user-store";
import type { Metrics } from "../observability/metrics";
import { bearerToken, constantTimeEqual } from "../core/credentials";

export interface OpsRouteDeps {
  store: UserStore;
  cache: Cache;
  metrics?: Metrics;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** How long a readiness probe waits for each backing service. */
  probeTimeoutMs?: number;
  /** True once shutdown began: a draining process must drop out of load balancing. */
  isDraining?: () => boolean;
}

/**
 * Operational routes, outside the `/api` prefix on purpose (spec 9 covers the API only):
 * liveness, readiness and Prometheus metrics.
 */
export function opsRoutes(deps: OpsRouteDeps): Router {
  const router = Router();
  const timeoutMs = deps.probeTimeoutMs ?? 1000;

  router.get("/healthz", (_req, res) => {
    res.json({ success: true, message: "alive", data: { status: "ok" } });
  });

  router.get("/readyz", async (_req, res) => {
    const [store, cache] = await Promise.all([probe(() => deps.store.ping(), timeoutMs), probe(() => deps.cache.ping(), timeoutMs)]);
    const draining = deps.isDraining?.() ?? false;
    const ready = store && cache && !draining;
    res.status(ready ? 200 : 503).json({
      success: ready,
      message: ready ? "ready" : draining ? "shutting down" : "a backing service is unavailable",
      data: {
        code: ready ? undefined : "service_unavailable",
        store: store ? "ok" : "unavailable",
        cache: cache ? "ok" : "unavailable",
        draining,
      },
    });
  });

  if (deps.metrics) {
    const metrics = deps.metrics;
    router.get("/metrics", async (req: Request, res: Response) => {
      if (deps.metricsToken) {
        const presented = bearerToken(req.header("authorization"));
        if (!presented || !constantTimeEqual(presented, deps.metricsToken)) {
          res.status(401).json({ success: false, message: "A valid metrics token is required", data: { code: "token_invalid" } });
          return;
        }
      }
      res.setHeader("content-type", metrics.registry.contentType);
      res.send(await metrics.registry.metrics());
    });
  }
  return router;
}

async function probe(check: () => Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([check(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), timeoutMs)))]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
