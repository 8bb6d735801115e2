import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress, LookupOptions } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { DomainError } from "./errors.ts";

/**
 * The one way to call a URL a customer supplied (webhooks, AI-provider base URLs, agent
 * integrations). Every such call is a server-side request forgery risk: the URL, and every
 * address its name resolves to at dial time, must be judged before a socket opens.
 */

export interface OutboundPolicy {
  /** Loopback destinations (127/8, ::1, names resolving there) allowed: tests and local dev only. */
  allowLoopback: boolean;
  /** Private, link-local, CGNAT and unique-local destinations allowed (an operator's choice). */
  allowPrivate: boolean;
}

export type Resolve = (hostname: string) => Promise<readonly { address: string; family: 4 | 6 }[]>;

export interface OutboundRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string | Buffer;
  /** The whole attempt (DNS, connect, TLS, request, response headers and the read body) never runs past this. */
  timeoutMs: number;
  policy: OutboundPolicy;
  /** DNS resolution; default node:dns lookup with all: true. Tests inject names that resolve to loopback. */
  resolve?: Resolve;
  /** Bytes of the response body kept (default 4096); the rest is discarded. */
  maxResponseBytes?: number;
  /**
   * The caller no longer wants the answer (a cancelled task run): nothing is sent once it has
   * aborted, and an attempt under way is torn down at once, its connection closed.
   */
  signal?: AbortSignal;
}

export interface OutboundResult {
  /** The response's status; undefined when none arrived (refused, blocked, timed out, reset). */
  statusCode: number | undefined;
  /** Undefined for a 2xx; else a short human message. */
  error: string | undefined;
  /**
   * The policy refused the destination (its URL, or an address its name resolved to): nothing
   * was sent, and sending again cannot succeed until the destination or the policy changes.
   */
  refused: boolean;
  /** Parsed Retry-After (delta-seconds or HTTP-date) in ms, when the response carried one. */
  retryAfterMs: number | undefined;
  durationMs: number;
  /** Up to maxResponseBytes of the body, as text. */
  responseBody: string;
}

const USER_AGENT = "Argus-Webhooks/1";
const DEFAULT_MAX_RESPONSE_BYTES = 4096;
const ERROR_BODY_CHARS = 200;

const PRIVATE = new Set(["private", "linkLocal", "carrierGradeNat", "uniqueLocal"]);

const RANGE_LABELS: Readonly<Record<string, string>> = {
  loopback: "loopback",
  private: "private (RFC 1918)",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT (RFC 6598)",
  uniqueLocal: "unique-local (private IPv6)",
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  reserved: "reserved",
  rfc6052: "a NAT64 address",
  rfc6145: "an IPv4-translated address",
  "6to4": "a 6to4 address",
  teredo: "a Teredo address",
};

/*
 * Instance-metadata services answer from link-local / private space with cloud credentials;
 * no webhook or provider legitimately lives there, so allowPrivate does not open them.
 */
const METADATA_ADDRESSES = new Set([
  "169.254.169.254", // AWS, GCP, Azure, OpenStack, …
  "169.254.170.2", // AWS ECS task metadata
  "100.100.100.200", // Alibaba Cloud
  "fd00:ec2::254", // AWS over IPv6
]);

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3") as [ipaddr.IPv6, number];
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96") as [ipaddr.IPv6, number];

/** The IPv4 address an IPv6 translation or tunnel address carries at a fixed place, if any. */
function embeddedIPv4(v6: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const bytes = v6.toByteArray();
  if (range === "ipv4Mapped" || range === "rfc6145" || v6.match(NAT64_WELL_KNOWN)) {
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  if (range === "6to4") return new ipaddr.IPv4(bytes.slice(2, 6));
  return undefined;
}

/** Why this IP address may not be dialled under the policy, or undefined when it may. */
export function blockedAddressReason(address: string, policy: OutboundPolicy): string | undefined {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return `destination ${address} is not an IP address`;
  }
  const denied = (what: string) => `destination ${text} is ${what}, which is not allowed`;
  const label = (range: string) => RANGE_LABELS[range] ?? `special-purpose (${range})`;

  let judged: ipaddr.IPv4 | ipaddr.IPv6 = parsed;
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    const range = v6.range();
    const inner = embeddedIPv4(v6, range);
    if (range === "ipv4Mapped" && inner) {
      // The kernel dials ::ffff:a.b.c.d as plain IPv4, so the embedded address is the destination.
      judged = inner;
    } else if (inner) {
      // Translation and tunnel prefixes hand the packet to a gateway that reaches the embedded
      // IPv4 from its own network; nothing webhooks need, so they stay closed whatever it is.
      return denied(`${label(range)} embedding ${inner.toString()}`);
    } else if (range === "unicast" && !v6.match(GLOBAL_UNICAST_V6)) {
      // ipaddr calls e.g. IPv4-compatible ::7f00:1 "unicast"; only 2000::/3 is routed globally.
      return denied("outside global unicast space");
    }
  }
  const shown = judged === parsed ? "" : ` (${judged.toString()})`;
  if (METADATA_ADDRESSES.has(judged.toString())) return denied(`a cloud metadata service${shown}`);
  const range = judged.range();
  if (range === "unicast") return undefined;
  if (range === "loopback" && policy.allowLoopback) return undefined;
  if (PRIVATE.has(range) && policy.allowPrivate) return undefined;
  return denied(`${label(range)}${shown}`);
}

/** `localhost`, `*.localhost` (RFC 6761) and their fully-qualified forms name loopback. */
function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** IPv6 literals keep their brackets in URL.hostname; sockets and ipaddr want them bare. */
function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Parses and checks a destination URL at create/update time, and again before each send.
 * WHATWG parsing canonicalises every IPv4 spelling (2130706433, 0177.1, 0x7f.0.0.1, 127.1)
 * to dotted decimal, so the literal check below sees the address the socket would dial.
 */
export function checkDestinationUrl(raw: string, policy: OutboundPolicy): URL {
  const invalid = (why: string) => new DomainError("invalid-request", why);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("destination URL is not a valid absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw invalid(`destination URL must use https, not ${url.protocol.slice(0, -1)}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw invalid("destination URL must not contain credentials");
  }
  const host = bareHost(url);
  if (host === "") throw invalid("destination URL has no host");

  // Whatever node would dial without a lookup (isIP) must be judged here, as a literal.
  const literal = ipaddr.isValid(host) || isIP(host) !== 0;
  let loopback: boolean;
  if (literal) {
    const reason = blockedAddressReason(host, policy);
    if (reason) throw invalid(reason);
    const parsed = ipaddr.process(host);
    loopback = parsed.range() === "loopback";
  } else {
    loopback = isLoopbackName(host);
    if (loopback && !policy.allowLoopback) {
      throw invalid(`destination ${host} is loopback, which is not allowed`);
    }
  }
  // Plain http is tolerated only where nothing crosses a network: local dev and tests.
  if (url.protocol === "http:" && !(loopback && policy.allowLoopback)) {
    throw invalid("destination URL must use https (plain http only for loopback in development)");
  }
  return url;
}

class BlockedDestinationError extends Error {}

const defaultResolve: Resolve = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net.connect that refuses the whole name when any address is blocked, so DNS
 * rebinding and mixed answers cannot slip a forbidden address between check and dial.
 */
function guardedLookup(resolve: Resolve, policy: OutboundPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    Promise.resolve()
      .then(() => resolve(hostname))
      .then((addresses) => {
        if (addresses.length === 0) throw new Error(`could not resolve ${hostname}`);
        for (const { address } of addresses) {
          const reason = blockedAddressReason(address, policy);
          if (reason) throw new BlockedDestinationError(`${hostname} resolves to ${reason}`);
        }
        const wanted = addresses.filter((a) => !options.family || a.family === options.family);
        const usable = wanted.length > 0 ? wanted : addresses;
        if (options.all) {
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          const first = usable[0]!;
          callback(null, first.address, first.family);
        }
      })
      .catch((err: unknown) => {
        callback(err instanceof Error ? err : new Error(String(err)), []);
      });
  };
}

/** Network failures as the short words an operator reads in a delivery log. */
function describeNetworkError(err: unknown, hostname: string): string {
  if (err instanceof BlockedDestinationError) return err.message;
  const first = err instanceof AggregateError && err.errors.length > 0 ? err.errors[0] : err;
  const e = first as NodeJS.ErrnoException;
  switch (e.code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset";
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return `could not resolve ${hostname}`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
    case "ETIMEDOUT":
      return "connection timed out";
    default: {
      const message = first instanceof Error ? first.message : String(first);
      return typeof e.code === "string" && /CERT|TLS|SSL/.test(e.code)
        ? `TLS error: ${message}`
        : message;
    }
  }
}

/** Retry-After as delta-seconds or an HTTP-date, in ms from now; undefined when absent or garbled. */
function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function withDefaultHeaders(
  headers: Readonly<Record<string, string>>,
  body: string | Buffer,
): Record<string, string> {
  const out: Record<string, string> = { ...headers };
  const has = (name: string) => Object.keys(out).some((k) => k.toLowerCase() === name);
  if (!has("content-type")) out["content-type"] = "application/json";
  if (!has("user-agent")) out["user-agent"] = USER_AGENT;
  // A fixed length instead of chunked encoding: some receivers reject chunked webhook bodies.
  if (!has("content-length")) out["content-length"] = String(Buffer.byteLength(body));
  return out;
}

/**
 * POSTs once. Never throws for network or destination errors (they are results) and never
 * follows redirects (a redirect could point anywhere, including back inside).
 */
export async function sendOutbound(req: OutboundRequest): Promise<OutboundResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string, refused = false): OutboundResult => ({
    statusCode: undefined,
    error,
    refused,
    retryAfterMs: undefined,
    durationMs: elapsed(),
    responseBody: "",
  });

  let url: URL;
  try {
    url = checkDestinationUrl(req.url, req.policy);
  } catch (err) {
    if (err instanceof DomainError) return failed(err.message, true);
    throw err;
  }
  if (req.signal?.aborted) return failed("cancelled");
  const hostname = bareHost(url);
  const maxBytes = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const transport = url.protocol === "https:" ? https : http;

  let request: http.ClientRequest;
  try {
    request = transport.request({
      protocol: url.protocol,
      hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: withDefaultHeaders(req.headers, req.body),
      agent: false,
      lookup: guardedLookup(req.resolve ?? defaultResolve, req.policy),
    });
  } catch (err) {
    // Node validates headers synchronously (e.g. a CR/LF in a customer's header value).
    return failed(`request not sent: ${err instanceof Error ? err.message : String(err)}`);
  }

  return new Promise<OutboundResult>((settle) => {
    let done = false;
    let response: http.IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let kept = 0;
    let refused = false;

    const finish = (networkError?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", cancel);
      // agent: false means this socket is ours alone; tearing it down frees nothing shared.
      request.destroy();
      const statusCode = response?.statusCode;
      const responseBody = Buffer.concat(chunks).toString("utf8");
      let error: string | undefined;
      if (statusCode === undefined) {
        error = networkError ?? "no response";
      } else if (statusCode >= 300 && statusCode < 400) {
        const location = response?.headers.location;
        error = location
          ? `redirect to ${location.slice(0, ERROR_BODY_CHARS)} not followed`
          : `HTTP ${statusCode} redirect not followed`;
      } else if (statusCode < 200 || statusCode >= 300) {
        const excerpt = responseBody.slice(0, ERROR_BODY_CHARS);
        error = excerpt ? `HTTP ${statusCode}: ${excerpt}` : `HTTP ${statusCode}`;
      }
      const retryAfterMs = parseRetryAfter(response?.headers["retry-after"]);
      settle({ statusCode, error, refused, retryAfterMs, durationMs: elapsed(), responseBody });
    };

    // One timer for DNS, connect, TLS, headers and body: per-phase timeouts let a slow-drip
    // receiver hold a worker indefinitely. Once a status has arrived it stays the verdict, and
    // a body cut short by the timer is only truncated.
    const timer = setTimeout(() => finish(`timed out after ${req.timeoutMs} ms`), req.timeoutMs);
    // A cancel is a network error of its own: whatever arrived before it is not the verdict.
    const cancel = () => {
      response = undefined;
      finish("cancelled");
    };
    req.signal?.addEventListener("abort", cancel, { once: true });

    request.on("error", (err) => {
      refused = err instanceof BlockedDestinationError;
      finish(describeNetworkError(err, hostname));
    });
    request.on("response", (res) => {
      response = res;
      res.on("data", (chunk: Buffer) => {
        if (kept < maxBytes) {
          const part = chunk.subarray(0, maxBytes - kept);
          chunks.push(part);
          kept += part.length;
        }
        // Enough kept: the rest would only cost time and memory.
        if (kept >= maxBytes) finish();
      });
      res.on("end", () => finish());
      res.on("error", () => finish());
    });
    request.end(req.body);
  });
}
