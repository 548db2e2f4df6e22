/**
 * The foreground/background life of a modelled mini-game, as the runtimes behave:
 * - `hide()` (the player switches apps, the phone locks, a rewarded video ad covers the game) calls
 *   the game's `onHide` listeners, then freezes the game: its timers, socket and request callbacks
 *   are held back until `show()` (iOS suspends the JavaScript of a backgrounded game);
 * - a game hidden for more than a few seconds loses its network: WeChat cuts every socket after
 *   5 s in the background (iOS), the game seeing close code 1000 "interrupted" once it runs again
 *   (reported by developers on WeChat's community, not in the official docs: unconfirmed);
 * - `show()` calls the `onShow` listeners, then delivers what was held back, in order;
 * - `playRewardedAd()` hides the game for the ad's 30 s, then shows it.
 * Timing comes from a clock: a test's controllable clock, or the process's timers.
 */
import type { HoldTimer } from "../../src/server/container";

export const PROCESS_CLOCK: HoldTimer = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** WeChat on iOS: a game in the background longer than this has its sockets cut. */
export const HIDDEN_NETWORK_CUT_MS = 5000;

export class AppLifecycle {
  hidden = false;
  /** How long a hidden game keeps its sockets; Infinity models a runtime that never cuts them. */
  cutSocketsAfterMs = HIDDEN_NETWORK_CUT_MS;
  clock: HoldTimer = PROCESS_CLOCK;
  private held: Array<() => void> = [];
  private readonly showListeners: Array<() => void> = [];
  private readonly hideListeners: Array<() => void> = [];
  private cutTimer: unknown;

  constructor(
    /** Cuts the device's sockets as the runtime does in the background. */
    private readonly cutSockets: () => void,
  ) {}

  /** Runs game code now, or once the game is shown again. */
  deliver(callback: () => void): void {
    if (this.hidden) this.held.push(callback);
    else callback();
  }

  onShow(listener: () => void): void {
    this.showListeners.push(listener);
  }
  onHide(listener: () => void): void {
    this.hideListeners.push(listener);
  }

  hide(): void {
    if (this.hidden) return;
    for (const listener of this.hideListeners) listener();
    this.hidden = true;
    if (Number.isFinite(this.cutSocketsAfterMs)) this.cutTimer = this.clock.setTimeout(() => this.cutSockets(), this.cutSocketsAfterMs);
  }

  /**
   * A rewarded video ad: the runtime covers the game (onHide, frozen, sockets cut after 5 s) for the
   * ad's length, typically 15–30 s, then gives it back (onShow) when the player closes it.
   */
  playRewardedAd(durationMs = 30_000): void {
    this.hide();
    this.clock.setTimeout(() => this.show(), durationMs);
  }

  show(): void {
    if (!this.hidden) return;
    this.clock.clearTimeout(this.cutTimer);
    this.hidden = false;
    for (const listener of this.showListeners) listener();
    const held = this.held;
    this.held = [];
    for (const callback of held) callback();
  }
}
