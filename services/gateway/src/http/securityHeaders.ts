import type { RequestHandler } from "express";

/**
 * The headers helmet's defaults set, less the two that are not the API's to set: the CSP is the
 * docs page's own, and HSTS belongs to whatever terminates TLS in front. nosniff, no framing,
 * no referrer and friends go on every response, Problems included. One middleware setting a
 * fixed list, rather than helmet's chain of one middleware per header, on every request.
 */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ["Origin-Agent-Cluster", "?1"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Content-Type-Options", "nosniff"],
  ["X-DNS-Prefetch-Control", "off"],
  ["X-Download-Options", "noopen"],
  ["X-Frame-Options", "SAMEORIGIN"],
  ["X-Permitted-Cross-Domain-Policies", "none"],
  ["X-XSS-Protection", "0"],
];

export const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  next();
};
