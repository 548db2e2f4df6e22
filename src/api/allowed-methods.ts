/**
 * The methods the routes under a router serve for a path, read from the router's own route table,
 * so an `OPTIONS` that is not a CORS preflight can be answered with the envelope and a true `Allow`
 * instead of Express's plain-text automatic answer. Relies on router 2.x's `Layer.match` (pure: it
 * returns the match and changes nothing), `layer.route` and a mounted router's `stack`.
 */
import type { Router } from "express";
import { matchOf } from "./route-template";

interface RouteLayer {
  match(path: string): { path: string } | false;
  route?: { _methods(): string[] };
  handle: { stack?: RouteLayer[] };
}

export function allowedMethods(router: Router, path: string): string[] {
  const methods = new Set<string>();
  collect((router as unknown as { stack: RouteLayer[] }).stack, path, methods);
  return [...methods];
}

function collect(stack: RouteLayer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    const match = matchOf(layer, path);
    if (!match) continue;
    if (layer.route) for (const method of layer.route._methods()) into.add(method);
    else if (layer.handle.stack) collect(layer.handle.stack, path.slice(match.path.length) || "/", into);
  }
}
