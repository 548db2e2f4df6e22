import type { Runtime, RuntimeSocket } from "../runtime";

/** What colyseus.js's Connection hands its transport: the room's socket event handlers. */
export interface TransportEvents {
  onopen?: ((event: unknown) => void) | null;
  onmessage?: ((event: { data: ArrayBuffer | string }) => void) | null;
  onclose?: ((event: { code: number; reason: string }) => void) | null;
  onerror?: ((event: { code?: number; reason?: string; message?: string }) => void) | null;
}

/**
 * colyseus.js's transport interface over the runtime's `connectSocket`. Rooms send `Uint8Array`
 * views into a shared buffer; mini-game sockets take only a string or an ArrayBuffer
 * (colyseus/colyseus.js#157), so each message is copied into an ArrayBuffer of its own.
 */
export class RuntimeSocketTransport {
  private socket: RuntimeSocket | undefined;
  private open = false;

  constructor(
    private readonly events: TransportEvents,
    private readonly runtime: Runtime,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  connect(url: string, headers?: Record<string, string>): void {
    const socket = this.runtime.connectSocket(url, headers ?? {});
    this.socket = socket;
    socket.onOpen(() => {
      this.open = true;
      this.events.onopen?.({});
    });
    socket.onMessage((data) => this.events.onmessage?.({ data }));
    socket.onClose((code, reason) => {
      this.open = false;
      this.events.onclose?.({ code, reason });
    });
    socket.onError((message) => this.events.onerror?.({ reason: message, message }));
  }

  send(data: Uint8Array | ArrayBuffer | string): void {
    this.socket?.send(typeof data === "string" ? data : toArrayBuffer(data));
  }

  sendUnreliable(data: Uint8Array | ArrayBuffer): void {
    // A WebSocket has no unreliable channel; colyseus.js's own transport drops these too.
    void data;
  }

  close(code?: number, reason?: string): void {
    this.socket?.close(code, reason);
  }
}

/** Exactly the view's bytes, as a standalone ArrayBuffer. */
export function toArrayBuffer(data: Uint8Array | ArrayBuffer): ArrayBuffer {
  if (!ArrayBuffer.isView(data)) return data;
  const { buffer, byteOffset, byteLength } = data;
  return (buffer as ArrayBuffer).slice(byteOffset, byteOffset + byteLength);
}
