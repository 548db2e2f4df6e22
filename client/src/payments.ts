/**
 * The player's coins and orders (the server's `/api/payments`, docs/payments.md). A purchase is
 * keyed by the game's `orderId`: retrying a purchase with the same one after any failure or timeout
 * never charges twice, so `spendCoins` retries an unconfirmed payment itself a few times.
 */
import { ApiError } from "./errors";

/** An order as the server shows it. */
export interface Order {
  orderId: string;
  kind: "coin_spend" | "coin_grant" | "item_purchase";
  itemId: string;
  coins: number;
  state: "pending" | "paid" | "delivered" | "failed" | "refunded";
  platform: string;
  platformOrderId: string;
  /** A coin spend's terms, fixed when it was priced (absent on older orders and other kinds): delivery grants them. */
  quantity?: number;
  unitPrice?: number;
  catalogVersion?: number;
  createdAt: string;
  updatedAt: string;
  /** Why a failed or refunded order is so. */
  failure?: string;
}

export type AuthedRequest = <T>(method: "GET" | "POST", path: string, body?: unknown) => Promise<T>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether a failure leaves the outcome open (no answer, or the platform's answer did not come in time). */
function unconfirmed(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === "payment_unconfirmed" || code === "network_error" || code === "timeout";
}

export async function balance(request: AuthedRequest): Promise<number> {
  return (await request<{ balance: number }>("GET", "/api/payments/balance")).balance;
}

/**
 * Spends coins on an item. Resolves the order (`state: "delivered"` once the server's delivery hook
 * ran); an unconfirmed payment is asked again with the same orderId up to `attempts` times, 1 s apart.
 * Other failures reject with the server's code (`insufficient_balance`, `order_conflict`…).
 */
export async function spendCoins(request: AuthedRequest, purchase: { orderId: string; itemId: string; quantity?: number; coins?: number }, attempts = 3): Promise<Order> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request<Order>("POST", "/api/payments/orders", purchase);
    } catch (err) {
      if (!unconfirmed(err) || attempt >= attempts) throw err;
      await sleep(1000);
    }
  }
}

/** `kind`: only an order of that kind (a coin order and an item purchase may share a number). */
export function order(request: AuthedRequest, orderId: string, kind?: Order["kind"]): Promise<Order> {
  return request<Order>("GET", `/api/payments/orders/${encodeURIComponent(orderId)}${kind ? `?kind=${kind}` : ""}`);
}

export async function orders(request: AuthedRequest, state?: Order["state"]): Promise<Order[]> {
  return (await request<{ orders: Order[] }>("GET", `/api/payments/orders${state ? `?state=${state}` : ""}`)).orders;
}

/**
 * Resolves when the server has delivered the order (an item bought through the platform's own
 * payment UI arrives by the platform's push, so the game waits for it): polls the order every
 * `intervalMs` until it is delivered, or rejects after `timeoutMs`. A room's `purchase` message
 * says the same sooner; the poll works outside rooms too.
 */
export async function waitForDelivery(request: AuthedRequest, orderId: string, options: { timeoutMs?: number; intervalMs?: number; kind?: Order["kind"] } = {}): Promise<Order> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    try {
      const found = await order(request, orderId, options.kind);
      if (found.state === "delivered") return found;
      if (found.state === "failed" || found.state === "refunded") throw new ApiError(200, `order_${found.state}`, `order ${orderId} is ${found.state}`, found);
    } catch (err) {
      // Not there yet: an item purchase appears once the platform's push arrived.
      if ((err as { code?: string }).code !== "order_not_found") throw err;
    }
    if (Date.now() >= deadline) throw new ApiError(0, "delivery_timeout", `order ${orderId} was not delivered in time`);
    await sleep(options.intervalMs ?? 1000);
  }
}
