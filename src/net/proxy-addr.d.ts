/** The part of proxy-addr (Express's own resolver) that client-ip.ts uses; the package ships no types. */
declare module "proxy-addr" {
  import type { IncomingMessage } from "node:http";
  type TrustFunction = (addr: string, hop: number) => boolean;
  function proxyaddr(req: IncomingMessage, trust: TrustFunction): string;
  namespace proxyaddr {
    /** The socket address, then each X-Forwarded-For entry from the nearest hop, up to the first untrusted one. */
    function all(req: IncomingMessage, trust?: TrustFunction): string[];
    /** A trust function for a list of addresses, subnets or the names loopback, linklocal, uniquelocal. */
    function compile(value: string | string[]): TrustFunction;
  }
  export = proxyaddr;
}
