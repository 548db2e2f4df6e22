// Stands in for @colyseus/httpie in the drop-in file: RuntimeHttp replaces colyseus.js's HTTP layer,
// so httpie is never called. Reaching this is a bug, said loudly.
function unused(): never {
  throw new Error("minigame-client: colyseus.js tried its own HTTP layer instead of the runtime's");
}
export const get = unused;
export const post = unused;
export const put = unused;
export const del = unused;
export const patch = unused;
export const send = unused;
