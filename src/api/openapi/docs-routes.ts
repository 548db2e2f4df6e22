import crypto from "node:crypto";
import { Router, type NextFunction, type Request, type Response } from "express";
import swaggerUi from "swagger-ui-express";
import { apiReferenceMarkdown, CODE_EXAMPLES } from "./descriptions";

const UI_OPTIONS: swaggerUi.SwaggerUiOptions = {
  customSiteTitle: "Mini-game login API",
  swaggerOptions: {
    // A pasted token survives reloads, so exploring the protected routes is not a chore.
    persistAuthorization: true,
    displayOperationId: false,
    tryItOutEnabled: false,
  },
};

type Json = Record<string, unknown>;

/**
 * The document with a new simulator player in every login code example: each code works once, so
 * a page prefilled with the README's `alice.1` would fail on first "Execute". One player per page
 * load (its codes `<name><id>.1`), the same in every login route of the page.
 */
export function withFreshCodes(document: object): object {
  const copy = structuredClone(document) as { paths?: Record<string, Record<string, { parameters?: Json[] }>> };
  const player = crypto.randomBytes(3).toString("hex");
  for (const item of Object.values(copy.paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) {
        const example = CODE_EXAMPLES[String(parameter.name)];
        if (example !== undefined && parameter.example === example) parameter.example = example.replace(/^([a-z]+)(\d*)\./, `$1$2${player}.`);
      }
    }
  }
  return copy;
}

/**
 * The page's document without the operator console's routes: they take the console's session cookie
 * and CSRF token, so nothing on the page could call them, and with them Swagger UI (5.x) stopped
 * rendering after the second tag (unexplained; test/browser/playground.test.ts). `/api-docs.json` and
 * docs/console.md keep describing them.
 */
export function withoutConsole(document: object): object {
  const doc = document as { paths?: Record<string, unknown>; tags?: Array<{ name: string }> };
  const paths = Object.fromEntries(Object.entries(doc.paths ?? {}).filter(([path]) => !path.startsWith("/console/")));
  return { ...doc, paths, tags: (doc.tags ?? []).filter((tag) => tag.name !== "console") };
}

/**
 * `/api-docs.json`, Swagger UI at `/api-docs` and the reference at `/api-docs/reference`, outside
 * `/api` (spec 4.7). The UI's document is given per request (swagger-ui-express's `req.swaggerDoc`),
 * so each page load gets fresh codes; `serveFiles` keeps it per router, never the package's shared state.
 * The document is built at its first request, not at start: building it (zod to JSON Schema for
 * every route and error) was a third of a server's start-up time.
 */
export function apiDocsRoutes(build: () => object): Router {
  const router = Router();
  let built: object | undefined;
  let reference: string | undefined;
  const document = () => (built ??= build());
  router.get("/api-docs.json", (_req, res) => {
    res.json(document());
  });
  router.get("/api-docs/reference", (_req, res) => {
    res.type("text/markdown; charset=utf-8").send((reference ??= apiReferenceMarkdown()));
  });
  router.use(
    "/api-docs",
    (req: Request, _res: Response, next: NextFunction) => {
      // Only the page and its init script carry the document; the other assets are static.
      if (req.path === "/" || req.path === "/swagger-ui-init.js") (req as { swaggerDoc?: object }).swaggerDoc = withoutConsole(withFreshCodes(document()));
      next();
    },
    swaggerUi.serveFiles(undefined, UI_OPTIONS),
    swaggerUi.setup(undefined, UI_OPTIONS),
  );
  return router;
}
