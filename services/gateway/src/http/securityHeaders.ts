import type { Response } from "express";

/**
 * The headers helmet's defaults set, less the two that are not the API's to set: the CSP is the
 * docs page's own, and HSTS belongs to whatever terminates TLS in front. nosniff, no framing,
 * no referrer and friends go on every response, Problems included. A fixed list set by the
 * gateway's first middleware, rather than helmet's chain of one middleware per header.
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

export function setSecurityHeaders(res: Response): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
}
