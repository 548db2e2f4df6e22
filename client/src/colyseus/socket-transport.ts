import type { Runtime, RuntimeSocket } from "../runtime";

/** What the SDK's Connection hands its transport: the room's socket event handlers. */
export interface TransportEvents {
  onopen?: ((event: unknown) => void) | null;
  onmessage?: ((event: { data: ArrayBuffer | string }) => void) | null;
  onclose?: ((event: { code: number; reason: string }) => void) | null;
  onerror?: ((event: { code?: number; reason?: string; message?: string }) => void) | null;
}

/** How a transport learns whether it still speaks for its room, and lets a lost connection be taken over. */
export interface TransportOwner {
  /** False once the room moved on to a newer connection: this one's late events are ignored. */
  isCurrent(transport: RuntimeSocketTransport): boolean;
  /**
   * The socket closed without anyone asking: true when the room's reconnection takes it from here
   * (the SDK then never hears of it, so the room and its handlers stay as they are).
   */
  takeOverLoss(code: number, reason: string): boolean;
}

/**
 * @colyseus/sdk's transport interface over the runtime's `connectSocket`. Rooms send `Uint8Array`
 * views into a shared buffer; mini-game sockets take only a string or an ArrayBuffer
 * (colyseus/colyseus.js#157), so each message is copied into an ArrayBuffer of its own.
 */
export class RuntimeSocketTransport {
  private socket: RuntimeSocket | undefined;
  private open = false;
  private closeRequested = false;
  private closed = false;

  constructor(
    private readonly events: TransportEvents,
    private readonly runtime: Runtime,
    private readonly owner?: TransportOwner,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  connect(url: string, headers?: Record<string, string>): void {
    const current = () => !this.owner || this.owner.isCurrent(this);
    const socket = this.runtime.connectSocket(url, headers ?? {});
    this.socket = socket;
    socket.onOpen(() => {
      if (!current()) return;
      this.open = true;
      this.events.onopen?.({});
    });
    socket.onMessage((data) => {
      if (current()) this.events.onmessage?.({ data });
    });
    socket.onClose((code, reason) => {
      const wasOpen = this.open;
      this.open = false;
      // One close per connection: a runtime may report a dead socket's close again later.
      if (this.closed || !current()) return;
      this.closed = true;
      if (wasOpen && !this.closeRequested && this.owner?.takeOverLoss(code, reason)) return;
      this.events.onclose?.({ code, reason });
    });
    socket.onError((message) => {
      if (current()) this.events.onerror?.({ reason: message, message });
    });
  }

  send(data: Uint8Array | ArrayBuffer | string): void {
    // A closed socket drops what is sent, as a browser's does (Node's `ws` would throw into the game's room.send).
    if (!this.open) return;
    this.socket?.send(typeof data === "string" ? data : toArrayBuffer(data));
  }

  sendUnreliable(data: Uint8Array | ArrayBuffer): void {
    // A WebSocket has no unreliable channel: sent reliably, as the SDK's own WebSocket transport does.
    this.send(data);
  }

  close(code?: number, reason?: string): void {
    this.closeRequested = true;
    this.socket?.close(code, reason);
  }
}

/** Exactly the view's bytes, as a standalone ArrayBuffer. */
export function toArrayBuffer(data: Uint8Array | ArrayBuffer): ArrayBuffer {
  if (!ArrayBuffer.isView(data)) return data;
  const { buffer, byteOffset, byteLength } = data;
  return (buffer as ArrayBuffer).slice(byteOffset, byteOffset + byteLength);
}
