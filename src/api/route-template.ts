/**
 * The route template a request path belongs to, found by walking the router's own layers with
 * Express's own matchers. Metrics and request logs label by it whatever the outcome: a request
 * refused by a middleware before its route ran (a 401 from the auth middleware, a 429) still
 * belongs to its route, and `req.baseUrl` no longer names the inner mount once an error has
 * bubbled up to the outer router's error handler.
 */
import type { Router } from "express";

interface Layer {
  match(path: string): false | { path: string; pattern: unknown };
  route?: { path: string; methods: Record<string, boolean | undefined> };
  handle?: { stack?: Layer[] };
}

/** `path` is relative to `router` (req.path where the router is mounted); undefined when no route matches. */
export function routeTemplateOf(router: Router, method: string, path: string): string | undefined {
  return find((router as unknown as { stack: Layer[] }).stack, method.toLowerCase(), path, "");
}

function find(stack: Layer[], method: string, path: string, prefix: string): string | undefined {
  for (const layer of stack) {
    const matched = matchOf(layer, path);
    if (!matched) continue;
    if (layer.route) {
      if (handlesMethod(layer.route.methods, method)) return prefix + layer.route.path;
      continue;
    }
    const inner = layer.handle?.stack;
    if (!inner) continue;
    const mount = typeof matched.pattern === "string" && matched.pattern !== "/" ? matched.pattern : matched.path;
    const rest = path.slice(matched.path.length);
    const found = find(inner, method, rest.startsWith("/") ? rest : `/${rest}`, prefix + mount);
    if (found) return found;
  }
  return undefined;
}

/**
 * A layer's match, or false where its parameters cannot be decoded (`%ZZ`): the router refuses such a
 * path with 400, and this runs again when the answer is sent, where a throw would escape the request.
 */
export function matchOf<T extends { match(path: string): unknown }>(layer: T, path: string): ReturnType<T["match"]> | false {
  try {
    return layer.match(path) as ReturnType<T["match"]>;
  } catch {
    return false;
  }
}

/** As Express dispatches: `all` takes every method, HEAD falls back to GET. */
function handlesMethod(methods: Record<string, boolean | undefined>, method: string): boolean {
  return Boolean(methods._all || methods[method] || (method === "head" && methods.get));
}
