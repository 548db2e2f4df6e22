/**
 * A clock a test moves by hand, for timers that would otherwise make a test wait for real: the
 * rooms' seat hold (ServiceOverrides.roomHoldTimer) and the modelled runtime's background timing.
 * `advance` fires what falls due in time order, letting the real event loop settle after each
 * (the server reacting to a socket the runtime cut, say) before going on.
 */
import type { HoldTimer } from "../../src/server/container";

interface Pending {
  at: number;
  order: number;
  callback: () => void;
}

export class ManualClock implements HoldTimer {
  /** Milliseconds since the clock was made. */
  now = 0;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  setTimeout(callback: () => void, ms: number): number {
    const id = this.nextId++;
    this.pending.set(id, { at: this.now + Math.max(0, ms), order: id, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Timers due within the next `ms`, soonest first. */
  dueWithin(ms: number): number {
    return [...this.pending.values()].filter((p) => p.at <= this.now + ms).length;
  }

  /** Moves time forward by `ms`, firing due timers in order; `settle` runs after each. */
  async advance(ms: number, settle: () => Promise<void> = () => new Promise((r) => setTimeout(r, 50))): Promise<void> {
    const target = this.now + ms;
    for (;;) {
      const next = [...this.pending.entries()].filter(([, p]) => p.at <= target).sort(([, a], [, b]) => a.at - b.at || a.order - b.order)[0];
      if (!next) break;
      const [id, due] = next;
      this.pending.delete(id);
      this.now = due.at;
      due.callback();
      await settle();
    }
    this.now = target;
  }
}
