import type { Response } from "express";

/**
 * The security headers every answer carries: those OWASP's REST Security Cheat Sheet gives for
 * all API responses (with `Cache-Control: no-store`, which operations' answers carry, and HSTS,
 * which belongs to whatever terminates TLS in front). Every answer carries them
 * (answerHeaders.ts): Problems, probes and the document too. Each header is work on every
 * answer, for the gateway and for every client that reads it: the ones that only steer how a
 * browser treats an HTML document are the docs page's alone (`DOCUMENT_HEADERS`).
 */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ["Content-Security-Policy", "frame-ancestors 'none'"],
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "DENY"],
];

/**
 * What helmet's defaults add for an HTML document, less HSTS (as above) and its CSP (the docs
 * page has its own): the gateway's one HTML answer, `GET /v2/docs`, carries them.
 */
export const DOCUMENT_HEADERS: readonly (readonly [string, string])[] = [
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ["Origin-Agent-Cluster", "?1"],
  ["Referrer-Policy", "no-referrer"],
  ["X-DNS-Prefetch-Control", "off"],
  ["X-Download-Options", "noopen"],
  ["X-Permitted-Cross-Domain-Policies", "none"],
  ["X-XSS-Protection", "0"],
];

const setAll = (res: Response, headers: readonly (readonly [string, string])[]) => {
  for (const [name, value] of headers) res.setHeader(name, value);
};

export const setDocumentHeaders = (res: Response): void => setAll(res, DOCUMENT_HEADERS);
