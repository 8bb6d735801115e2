import { Router } from "express";
import { DomainError } from "@argus/platform";
import type { LoadedDocument } from "./openapi/document.ts";
import { renderDocsPage } from "./openapi/docsPage.ts";

/** Probes and the contract itself: no authentication, no rate limit. */
export function operationalRoutes(loaded: LoadedDocument, ready: () => Promise<boolean>): Router {
  const docsHtml = renderDocsPage(loaded.document);
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const ok = await ready().catch(() => false);
    if (!ok) throw new DomainError("service-unavailable", "the gateway is not ready");
    res.json({ status: "ok" });
  });
  router.get("/v2/spec.yaml", (_req, res) => {
    res.type("application/yaml").send(loaded.text);
  });
  router.get("/v2/docs", (_req, res) => {
    res.type("html").send(docsHtml);
  });
  return router;
}
