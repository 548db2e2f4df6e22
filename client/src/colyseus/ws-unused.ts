// Stands in for the `ws` package in the drop-in file: rooms connect through the runtime's socket.
export default function unused(): never {
  throw new Error("minigame-client: @colyseus/sdk tried its own WebSocket instead of the runtime's");
}
