/**
 * Room sessions for analytics: a player seated (session_start) and gone for good (session_end,
 * with its length). A reconnection within the seat's hold is the same session. The rooms call
 * these two methods; nothing here knows Colyseus.
 */
import type { AnalyticsRecorder } from "../../core/ports/analytics-store";
import { SERVER_EVENTS } from "./event-names";

export class RoomSessions {
  /** Seats open in this process: when each began. */
  private readonly started = new Map<string, number>();

  constructor(
    private readonly recorder: AnalyticsRecorder,
    private readonly now: () => number = Date.now,
  ) {}

  /** `seat`: unique among the process's seated clients (the room's id and the client's session id). */
  start(app: string, userId: string, room: string, seat: string): void {
    this.started.set(seat, this.now());
    this.recorder.record({ name: SERVER_EVENTS.sessionStart, app, userId, props: { room } });
  }

  end(app: string, userId: string, room: string, seat: string): void {
    const began = this.started.get(seat);
    if (began === undefined) return;
    this.started.delete(seat);
    this.recorder.record({ name: SERVER_EVENTS.sessionEnd, app, userId, props: { room, seconds: Math.max(0, Math.round((this.now() - began) / 1000)) } });
  }
}
