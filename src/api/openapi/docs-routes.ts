import { Router } from "express";
import swaggerUi from "swagger-ui-express";

const UI_OPTIONS: swaggerUi.SwaggerUiOptions = {
  customSiteTitle: "Mini-game login API",
  swaggerOptions: {
    // A pasted token survives reloads, so exploring the protected routes is not a chore.
    persistAuthorization: true,
    displayOperationId: false,
    tryItOutEnabled: false,
  },
};

/**
 * `/api-docs.json` and Swagger UI at `/api-docs`, outside `/api` (spec 4.7). `serveFiles` keeps
 * the document per router: the package's shared `serve` would hold whichever app booted last.
 */
export function apiDocsRoutes(document: object): Router {
  const router = Router();
  router.get("/api-docs.json", (_req, res) => {
    res.json(document);
  });
  router.use("/api-docs", swaggerUi.serveFiles(document, UI_OPTIONS), swaggerUi.setup(document, UI_OPTIONS));
  return router;
}
