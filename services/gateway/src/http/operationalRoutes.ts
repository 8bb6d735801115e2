import { createHash } from "node:crypto";
import { Router } from "express";
import helmet from "helmet";
import { DomainError } from "@argus/platform";
import type { LoadedDocument } from "../openapi/document.ts";
import { STYLE, renderDocsPage } from "../openapi/docsPage.ts";
import { setDocumentHeaders } from "./securityHeaders.ts";

/**
 * The docs page is self-contained: no script at all, its one inline style by hash, never
 * framed (click-jacking), no form or base to redirect.
 */
const docsPolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    styleSrc: [`'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`],
    imgSrc: ["'self'", "data:"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
});

/** The paths served below (each document operation's path is checked against them). */
export const OPERATIONAL_PATHS = ["/healthz", "/readyz", "/v2/spec.yaml", "/v2/docs"];

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
  router.get("/v2/docs", docsPolicy, (_req, res) => {
    setDocumentHeaders(res);
    res.type("html").send(docsHtml);
  });
  return router;
}
