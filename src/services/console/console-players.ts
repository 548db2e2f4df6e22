/**
 * What the console does to players and their orders, in the server process: it holds the kept
 * session keys and the ledger, so refunds and grants work on every cache backend (the in-memory
 * one included, which the admin CLI cannot reach). Knows nothing of Express.
 */
import { AppError } from "../../core/errors";
import type { Order, OrderState } from "../../core/ports/order-ledger";
import type { UserMute, UserRestriction, UserStore } from "../../core/ports/user-store";
import type { PlatformIdentityKey, User } from "../../core/user";
import type { PlatformDefinition } from "../../platforms/platform";
import type { PaymentServices } from "../service-groups";
import type { AccountService } from "../account-service";
import type { MuteService } from "../mute-service";
import type { PlatformApps } from "../platform-apps";
import type { SessionService } from "../session-service";
import type { UserExport } from "../user-export";

export interface PlayerOverview {
  user: User;
  restriction: UserRestriction | null;
  /** The mute of the player's chat in rooms, while one is in force. */
  mute: UserMute | null;
  /** Each identity with the app it belongs to where one can be told (a bare platform name is studio-wide). */
  identities: Array<PlatformIdentityKey & { app: string | null }>;
  /** The apps in which a session is live. */
  sessionApps: string[];
}

export interface ConsolePlayerDeps {
  store: UserStore;
  accounts: AccountService;
  mutes: MuteService;
  sessions: SessionService;
  payments: PaymentServices;
  platformApps: PlatformApps;
  platformDefinitions: readonly PlatformDefinition[];
  /** Every store port's section, the same export as `npm run admin -- export` (user-export.ts). */
  userExport: Pick<UserExport, "collect">;
}

export class ConsolePlayers {
  constructor(private readonly deps: ConsolePlayerDeps) {}

  /**
   * Players a support request names: by user id, username, email, nickname, part of a nickname or
   * username (two characters or more), or any platform
   * id (openid, unionid, anonymous id) in any app's namespace; `platform:id` narrows to one platform.
   */
  async search(query: string): Promise<PlayerOverview[]> {
    const q = query.trim();
    if (!q) return [];
    const { store } = this.deps;
    const found = new Map<string, User>();
    const add = (u: User | null | undefined) => {
      if (u) found.set(u.id, u);
    };
    add(await store.findById(q));
    add((await store.findCredentialsByUsername(q))?.user);
    if (q.includes("@")) add((await store.findCredentialsByEmail(q.toLowerCase()))?.user);
    for (const u of await store.findByNickname(q, 20)) add(u);
    // Part of a name: a support request quotes what the player calls themselves, often not all of it.
    if (q.length >= 2) for (const u of await store.findByNamePart(q, 20)) add(u);
    const colon = q.indexOf(":");
    const narrowed = colon > 0 ? this.deps.platformDefinitions.find((p) => p.name === q.slice(0, colon)) : undefined;
    const platformId = narrowed ? q.slice(colon + 1) : q;
    for (const namespace of this.namespaces(narrowed?.name)) add(await store.findByIdentity({ platform: namespace, platformId }));
    return Promise.all([...found.values()].map((u) => this.overviewOf(u)));
  }

  async overview(userId: string): Promise<PlayerOverview> {
    return this.overviewOf(await this.require(userId));
  }

  async kick(userId: string): Promise<PlayerOverview> {
    const user = await this.require(userId);
    await this.deps.sessions.endSession(user.id, "operator");
    return this.overviewOf(user);
  }

  async disable(userId: string, restriction: { reason: string; until: string | null }): Promise<PlayerOverview> {
    await this.require(userId);
    return this.overviewOf(await this.deps.accounts.disableUser(userId, restriction));
  }

  async enable(userId: string): Promise<PlayerOverview> {
    await this.require(userId);
    return this.overviewOf(await this.deps.accounts.enableUser(userId));
  }

  /** Refuses the player's chat in rooms for `durationSec`, on every process at once. */
  async mute(userId: string, input: { reason: string; durationSec: number }): Promise<PlayerOverview> {
    const user = await this.require(userId);
    await this.deps.mutes.mute(user.id, input);
    return this.overviewOf(user);
  }

  async unmute(userId: string): Promise<PlayerOverview> {
    const user = await this.require(userId);
    await this.deps.mutes.unmute(user.id);
    return this.overviewOf(user);
  }

  /** Erases only when `confirmation` repeats the player's username or id: a typed confirmation. */
  async erase(userId: string, confirmation: string): Promise<{ erased: string }> {
    const user = await this.require(userId);
    if (confirmation !== user.username && confirmation !== user.id) {
      throw new AppError("invalid_request", { message: "confirm: type the player's username to erase it", data: { fields: [{ field: "confirm", message: "must be the player's username" }] } });
    }
    await this.deps.accounts.eraseUser(user.id);
    return { erased: user.id };
  }

  /** Everything stored about the player in every store port (never a password hash): the data-access right. */
  export(userId: string): Promise<Record<string, unknown>> {
    return this.deps.userExport.collect(userId);
  }

  /** The player's orders, newest first; with `app`, only that app's (on any platform). */
  async orders(userId: string, state?: OrderState, app?: string): Promise<Order[]> {
    const orders = await this.deps.payments.ledger.listByUser(userId, { state, limit: 100 });
    if (app === undefined) return orders;
    const { platformApps, platformDefinitions } = this.deps;
    const ids = new Set(platformDefinitions.map((d) => platformApps.find(d.name, app)).filter((e) => e !== undefined).map((e) => `${e!.definition.name}\0${e!.appId}`));
    if (ids.size === 0) throw new AppError("unknown_app", { message: `No app ${app} here` });
    return orders.filter((o) => ids.has(`${o.platform}\0${o.appId}`));
  }

  /** A coin spend's refund, where the order's platform has one (Douyin's wallet has none: refused before asking it). */
  async refund(userId: string, orderId: string): Promise<Order> {
    const order = await this.deps.payments.ledger.findByOrderId(userId, orderId);
    const definition = order && this.deps.platformDefinitions.find((d) => d.name === order.platform);
    if (order && order.state !== "refunded" && definition && !definition.coins?.refunds) {
      throw new AppError("invalid_request", { message: `${definition.displayName} has no refund of coin orders: give the coins back with a grant`, data: { platform: order.platform, orderId } });
    }
    return this.deps.payments.operations.refund(userId, orderId);
  }

  /** Coins given once per grant id, signed with the player's kept session key in `app` on `platform`; `created` false: given before. */
  async grant(userId: string, input: { platform: string; app: string; coins: number; grantId: string; reason: string }): Promise<{ order: Order; created: boolean }> {
    await this.require(userId);
    const entry = this.deps.platformApps.get(input.platform, input.app);
    return this.deps.payments.operations.grantOnce({ userId, platform: input.platform, appId: entry.appId }, input.grantId, input.coins, input.reason);
  }

  /** Runs the delivery of a paid order again (the game's hook is idempotent by order id; docs/payments.md). */
  async redeliver(userId: string, orderId: string): Promise<Order> {
    const order = await this.deps.payments.ledger.findByOrderId(userId, orderId);
    if (!order) throw new AppError("order_not_found");
    if (order.state === "delivered") return order; // already done: a repeat changes nothing
    if (order.state === "pending" && order.kind === "coin_grant") return this.deps.payments.operations.presentPending(order);
    if (order.state !== "paid") throw new AppError("invalid_request", { message: `Only a paid order waits for delivery; this one is ${order.state}` });
    const delivered = await this.deps.payments.payments.delivery.deliver(order);
    return (await this.deps.payments.payments.delivery.settled(delivered.id)) ?? delivered;
  }

  /** Orders the reconciler is still waiting on (unsettled), oldest first. */
  unsettled(limit = 100): Promise<Order[]> {
    return this.deps.payments.ledger.listUnsettled(new Date(Date.now() + 1000).toISOString(), limit);
  }

  private namespaces(platform?: string): string[] {
    const out = new Set<string>();
    for (const def of this.deps.platformDefinitions) {
      if (platform && def.name !== platform) continue;
      out.add(def.name);
      for (const app of this.deps.platformApps.appsOf(def.name)) out.add(this.deps.platformApps.namespaceOf(app));
    }
    return [...out];
  }

  private appOfNamespace(namespace: string): string | null {
    for (const def of this.deps.platformDefinitions) {
      for (const app of this.deps.platformApps.appsOf(def.name)) if (this.deps.platformApps.namespaceOf(app) === namespace) return app.app;
    }
    return null;
  }

  private async require(userId: string): Promise<User> {
    const user = await this.deps.store.findById(userId);
    if (!user) throw new AppError("player_not_found");
    return user;
  }

  private async overviewOf(user: User): Promise<PlayerOverview> {
    const [restriction, mute, identities, sessionApps] = await Promise.all([
      this.deps.store.findRestriction(user.id),
      this.deps.mutes.find(user.id),
      this.deps.store.listIdentities(user.id),
      this.deps.sessions.liveApps(user.id),
    ]);
    return { user, restriction, mute, identities: identities.map((i) => ({ ...i, app: this.appOfNamespace(i.platform) })), sessionApps };
  }
}
