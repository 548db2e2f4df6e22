/**
 * The groups of services the composition root (server/*-wiring.ts) builds for one area each, as
 * types: the edges and the services take them from here, below the server that wires them.
 */
import type { AnalyticsStore } from "../core/ports/analytics-store";
import type { EconomyStore } from "../core/ports/economy-store";
import type { RewardStores } from "../core/ports/mail-store";
import type { Order, OrderLedger } from "../core/ports/order-ledger";
import type { LiveMsgType } from "../platforms/douyin/douyin-live";
import type { AnalyticsCounters } from "./analytics/analytics-events";
import type { AnalyticsReports } from "./analytics/analytics-reports";
import type { ClientEvents } from "./analytics/client-events";
import type { EventWriter, Stamper } from "./analytics/event-writer";
import type { ExperimentResults, ExperimentSource } from "./analytics/experiment-results";
import type { RollupService } from "./analytics/rollup-service";
import type { RoomSessions } from "./analytics/room-sessions";
import type { LiveIntake } from "./douyin-live/live-intake";
import type { LiveRoomMessage } from "./douyin-live/live-ports";
import type { DouyinLiveMonitor } from "./douyin-live/live-monitor";
import type { DouyinLiveSessions } from "./douyin-live/live-sessions";
import type { CatalogService } from "./economy/catalog-service";
import type { PaidOrders } from "./economy/paid-orders";
import type { EconomyRewards } from "./economy/reward-granter";
import type { ShopService } from "./economy/shop-service";
import type { DailyGrowthRewards } from "./growth/daily-rewards";
import type { RiskRanks } from "./growth/risk-rank";
import type { DouyinFeed } from "./growth/douyin-feed";
import type { ShareMessages } from "./growth/share-messages";
import type { SidebarRewards } from "./growth/sidebar-reward";
import type { WechatOpenData } from "./growth/wechat-open-data";
import type { OrderReconciler } from "./payments/order-reconciler";
import type { DeliverItem, OrderRules, PaymentPlayer, PushApp } from "./payments/payment-deps";
import type { PaymentOperations } from "./payments/payment-operations";
import type { PaymentService } from "./payments/payment-service";
import type { AdRewards, RewardApp } from "./rewards/ad-rewards";
import type { GiftCodes } from "./rewards/gift-codes";
import type { GiftRewards } from "./rewards/gift-rewards";
import type { MailService } from "./rewards/mail-service";
import type { PlayerStorageService } from "./social/player-storage-service";
import type { SubscribeMessageService } from "./social/subscribe-message-service";

export interface PaymentServices {
  ledger: OrderLedger;
  payments: PaymentService;
  operations: PaymentOperations;
  reconciler: OrderReconciler;
  /** The catalog's rules for coin spends, from the economy (economy-wiring.ts). */
  setOrderRules(rules: OrderRules): void;
  /** The game's delivery hook, registered next to the rooms (app.config.ts). */
  onDeliver(hook: DeliverItem): void;
  /** How a delivered order reaches the player's room connections; set by the room edge. */
  onNotify(notify: (order: Order) => void): void;
  paymentsEnabled(app: string): boolean;
  /** Whether the app takes payments on this platform (its wallet keys are set). */
  paymentsOn(platform: string, app: string): boolean;
  resolvePlayer(userId: string, app: string): Promise<PaymentPlayer>;
  /** The game's (platform, app id)s where item purchases are recorded. */
  itemPurchaseApps(app: string): Array<{ platform: string; appId: string }>;
  pushApps(platform: string): PushApp[];
  /** Starts the reconciler: one sweep now, then every PAYMENT_RECONCILE_INTERVAL_SEC. */
  start(): void;
  close(): Promise<void>;
}

export interface EconomyServices {
  store: EconomyStore;
  /** The one RewardGranter: every grant of value passes here. */
  rewards: EconomyRewards;
  catalogs: CatalogService;
  shop: ShopService;
  /** Paid orders: their terms when priced, the per-player rules of coin spends, their delivery. */
  orders: PaidOrders;
  /** The catalog's check of pushed item purchases, counted in `economy_item_purchases_refused_total`. */
  refuseItemPurchase(app: string, platform: string, itemId: string, price: number): string | null;
  /** Reads the stored catalogs, then keeps polling them. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface RewardServices {
  stores: RewardStores;
  ads: AdRewards;
  gifts: GiftRewards;
  giftCodes: GiftCodes;
  mail: MailService;
  rewardApps(platform: string): RewardApp[];
  close(): Promise<void>;
}

export interface GrowthServices {
  daily: DailyGrowthRewards;
  sidebar: SidebarRewards;
  riskRanks: RiskRanks;
  wechatOpenData: WechatOpenData;
  shares: ShareMessages;
  /** Douyin's feed direct play: the ready scenes Douyin asks for. */
  douyinFeed: DouyinFeed;
}

export interface SocialServices {
  playerStorage: PlayerStorageService;
  subscribeMessages: SubscribeMessageService;
}

export interface AnalyticsServices {
  store: AnalyticsStore;
  /** Where every service records its facts (an AnalyticsRecorder). */
  writer: EventWriter;
  rollups: RollupService;
  reports: AnalyticsReports;
  /** POST /api/events: the players' own events, judged one by one. */
  clientEvents: ClientEvents;
  counters: AnalyticsCounters;
  /** Room sessions (seated → gone) reported by the rooms. */
  roomSessions: RoomSessions;
  /** Experiments' results per variant; set once LiveOps is built (it knows the experiments and assignments). */
  experiments?: ExperimentResults;
  /** Builds `experiments` over LiveOps' experiments and stored assignments; events are stamped by `stamper` from then on. */
  joinLiveOps(source: ExperimentSource, stamper: Stamper): void;
  /** Starts writing and the periodic rollup. */
  start(): void;
  /** Writes what is buffered (within a budget), stops the timers, closes the store. */
  close(): Promise<void>;
}

export interface DouyinLiveServices {
  intake: LiveIntake;
  sessions: DouyinLiveSessions;
  /** The console's view: live rooms, task status, counts, a round's ledger. */
  monitor: DouyinLiveMonitor;
  pushPath: string;
  secrets: Partial<Record<LiveMsgType, string | undefined>>;
  /** Where room messages go: set by the game server once its presence is up. */
  connectRooms(publish: (liveRoomId: string, messages: LiveRoomMessage[]) => Promise<void>): void;
  /** Live rooms whose failed data this process reads (rooms it holds). */
  watch(liveRoomId: string): void;
  unwatch(liveRoomId: string): void;
  close(): Promise<void>;
}
