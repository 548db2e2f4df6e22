/**
 * Dead and returning hosts, handled by the server rather than by the next unlucky player.
 *
 * Written against @colyseus/core 0.16.26 (MatchMaker.js, Stats.js; upstream colyseus#850, #480, #968);
 * 0.18 restores a stalled process's own listings when it reads that another removed them (its
 * "swept" receipt), but still checks other processes only at start and after a failed request, so
 * these checks stay until upstream handles the rest:
 * - A process killed (SIGKILL, power loss) stays listed for ever. A failed create on it removes only
 *   its room-count entry (createRoom → stats.excludeProcess); the later health check then unlists
 *   its rooms only if it removed that entry itself (healthCheckProcessId), and a restarted process
 *   checks only processes still in the room count (healthCheckAllProcesses). Every joinOrCreate that
 *   picks one of its rooms fails after the presence timeout.
 * - A process cut off from the network stays listed until a player's request trips on it: Colyseus
 *   checks other processes only at start and after a failed request.
 * - A process that comes back stays excluded until its room count changes or a quiet minute passes
 *   (Stats.setAutoPersistInterval), and its rooms stay unlisted until they change. The same after a
 *   Redis restart that lost its data: every process and room is gone from the records.
 *
 * So every `intervalMs` each process (only with shared Redis):
 * 1. reads the shared process records within the presence timeout; when that fails its own
 *    connections are reopened, once per outage (a connection the network dropped silently would
 *    otherwise wait out TCP's retransmission back-off after the network is back);
 * 2. puts itself and its rooms back in the shared records if another process removed them;
 * 3. health-checks every other process with Colyseus's own check (no answer within the presence
 *    timeout: the process is removed with its rooms);
 * 4. removes listings whose process is in no record (killed processes, whatever removed their entry).
 */
import { matchMaker } from "@colyseus/core";
import type { Logger } from "../logging/logger";

/** A room listing as the driver keeps it. */
export interface Listing {
  roomId: string;
  processId: string;
  save(): Promise<unknown>;
}

export interface HostHealthOptions {
  intervalMs: number;
  /** Colyseus's presence request timeout: how long another process has to answer. */
  presenceTimeoutMs: number;
  logger: Logger;
  /** Listings of this process's rooms (ListingRedisDriver). */
  ownListings(): Listing[];
  /** Reopens the presence and driver connections. */
  reconnect(): void;
}

export class HostHealth {
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private unreachableSince: number | undefined;
  private readonly log: Logger;

  constructor(private readonly options: HostHealthOptions) {
    this.log = options.logger.child({ component: "host-health" });
  }

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round of the checks above; never throws, never overlaps itself. */
  async tick(): Promise<void> {
    if (this.ticking || matchMaker.state !== matchMaker.MatchMakerState.READY) return;
    this.ticking = true;
    try {
      const processes = await this.readProcesses();
      if (!processes) return;
      await this.announceSelf(processes);
      const dead = await this.checkOthers(processes);
      await this.removeOrphanListings(new Set(processes.filter((p) => !dead.includes(p))));
    } catch (err) {
      this.log.warn({ err }, "host check failed; retrying at the next interval");
    } finally {
      this.ticking = false;
    }
  }

  /** Process ids in the shared records, or undefined when Redis does not answer in time. */
  private async readProcesses(): Promise<string[] | undefined> {
    try {
      const stats = await withDeadline(matchMaker.stats.fetchAll(), this.options.presenceTimeoutMs);
      if (this.unreachableSince !== undefined) {
        this.log.info({ offlineMs: Date.now() - this.unreachableSince }, "shared Redis answers again");
        this.unreachableSince = undefined;
      }
      return stats.map((s) => s.processId);
    } catch (err) {
      if (this.unreachableSince === undefined) {
        this.unreachableSince = Date.now();
        this.log.warn({ err }, "shared Redis does not answer: reopening the room presence connections");
        this.options.reconnect();
      }
      return undefined;
    }
  }

  private async announceSelf(processes: string[]): Promise<void> {
    const me = matchMaker.processId;
    if (processes.includes(me)) return;
    await matchMaker.stats.persist(true);
    const listings = this.options.ownListings();
    await Promise.all(listings.map((l) => l.save()));
    processes.push(me);
    this.log.warn({ rooms: listings.length }, "this process was missing from the shared room records (cut off, too slow to answer, or Redis lost its data): listed again");
  }

  /** Colyseus's health check of every other process; returns those that did not answer. */
  private async checkOthers(processes: string[]): Promise<string[]> {
    const others = processes.filter((p) => p !== matchMaker.processId);
    const answered = await Promise.all(others.map((p) => matchMaker.healthCheckProcessId(p)));
    const dead = others.filter((_, i) => !answered[i]);
    for (const processId of dead) {
      this.log.warn({ processId, timeoutMs: this.options.presenceTimeoutMs }, "a process did not answer its health check: removed with its rooms");
    }
    return dead;
  }

  private async removeOrphanListings(live: Set<string>): Promise<void> {
    const listings = (await matchMaker.driver.query({})) as unknown as Listing[];
    const listed = new Set(listings.map((l) => l.roomId));
    const suspects = new Set(listings.map((l) => l.processId).filter((p) => !live.has(p)));
    if (suspects.size > 0) {
      // Read again: a process that started since the first read has an entry by now.
      const current = new Set((await matchMaker.stats.fetchAll()).map((s) => s.processId));
      for (const processId of suspects) {
        if (current.has(processId)) continue;
        await matchMaker.driver.cleanup?.(processId);
        this.log.warn({ processId }, "removed the room listings of a process that is gone");
      }
    }
    // Our own rooms that someone unlisted while this process still held its entry.
    const missing = this.options.ownListings().filter((l) => !listed.has(l.roomId));
    if (missing.length > 0) {
      await Promise.all(missing.map((l) => l.save()));
      this.log.info({ rooms: missing.length }, "listed this process's rooms again");
    }
  }
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
