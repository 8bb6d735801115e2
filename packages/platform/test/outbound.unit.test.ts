import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "../src/errors.ts";
import {
  blockedAddressReason,
  checkDestinationUrl,
  sendOutbound,
  type OutboundPolicy,
  type OutboundRequest,
  type Resolve,
} from "../src/outbound.ts";

const closed: OutboundPolicy = { allowLoopback: false, allowPrivate: false };
const loopbackOk: OutboundPolicy = { allowLoopback: true, allowPrivate: false };
const privateOk: OutboundPolicy = { allowLoopback: false, allowPrivate: true };

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Listener {
  port: number;
  /** TCP connections accepted so far: the proof that nothing was dialled. */
  connections: () => number;
  received: Received[];
  close: () => Promise<void>;
}

/** A loopback server on a random port that records every connection and request. */
async function listen(
  respond: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  host = "127.0.0.1",
): Promise<Listener> {
  let connections = 0;
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      respond(req, res);
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((ok) => server.listen(0, host, ok));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    received,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

const send = (url: string, extra: Partial<OutboundRequest> = {}) =>
  sendOutbound({ url, headers: {}, body: "{}", timeoutMs: 2000, policy: closed, ...extra });

const resolvesTo =
  (...addresses: string[]): Resolve =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

function rejection(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).type).toBe("invalid-request");
    return err as DomainError;
  }
  throw new Error("expected a DomainError, got none");
}

describe("SSRF: nothing reaches a loopback canary under the closed policy", () => {
  let canary: Listener;
  beforeAll(async () => {
    // It answers 200 to anything, so a wrong implementation would even look successful.
    canary = await listen((_req, res) => res.end("ok"));
  });
  afterAll(() => canary.close());
  afterEach(() => expect(canary.connections()).toBe(0));

  const literals: [string, (port: number) => string, RegExp][] = [
    ["dotted loopback", (p) => `https://127.0.0.1:${p}/`, /loopback/],
    ["decimal integer", (p) => `https://2130706433:${p}/`, /loopback/],
    ["octal first octet", (p) => `https://0177.0.0.1:${p}/`, /loopback/],
    ["hex first octet", (p) => `https://0x7f.0.0.1:${p}/`, /loopback/],
    ["hex integer", (p) => `https://0x7f000001:${p}/`, /loopback/],
    ["two-part short form", (p) => `https://127.1:${p}/`, /loopback/],
    ["three-part short form", (p) => `https://127.0.1:${p}/`, /loopback/],
    ["octal integer", (p) => `https://017700000001:${p}/`, /loopback/],
    ["IPv6 loopback", (p) => `https://[::1]:${p}/`, /loopback/],
    ["IPv4-mapped dotted", (p) => `https://[::ffff:127.0.0.1]:${p}/`, /loopback/],
    ["IPv4-mapped hex", (p) => `https://[::ffff:7f00:1]:${p}/`, /loopback/],
    ["IPv4-mapped long form", (p) => `https://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`, /loopback/],
    ["IPv4-compatible (deprecated)", (p) => `https://[::127.0.0.1]:${p}/`, /global unicast/],
    ["unspecified IPv4", (p) => `https://0.0.0.0:${p}/`, /unspecified/],
    ["unspecified short", (p) => `https://0:${p}/`, /unspecified/],
    ["unspecified IPv6", (p) => `https://[::]:${p}/`, /unspecified/],
    ["localhost", (p) => `https://localhost:${p}/`, /localhost is loopback/],
    ["LOCALHOST. fully qualified", (p) => `https://LOCALHOST.:${p}/`, /loopback/],
    ["a .localhost subdomain", (p) => `https://foo.localhost:${p}/`, /loopback/],
    ["a .localhost. subdomain", (p) => `https://foo.localhost.:${p}/`, /loopback/],
    ["plain http to loopback", (p) => `http://127.0.0.1:${p}/`, /loopback/],
    ["NAT64 well-known prefix", (p) => `https://[64:ff9b::7f00:1]:${p}/`, /NAT64.*127\.0\.0\.1/],
    ["6to4", (p) => `https://[2002:7f00:1::]:${p}/`, /6to4.*127\.0\.0\.1/],
  ];

  it.each(literals)("%s is refused at check time and at send time", async (_name, url, why) => {
    const target = url(canary.port);
    expect(rejection(() => checkDestinationUrl(target, closed)).message).toMatch(why);
    const result = await send(target);
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toMatch(why);
    expect(result.refused).toBe(true);
  });

  const resolved: [string, string[]][] = [
    ["127.0.0.1", ["127.0.0.1"]],
    ["::1", ["::1"]],
    ["::ffff:127.0.0.1", ["::ffff:127.0.0.1"]],
    ["a public and a loopback address", ["93.184.216.34", "127.0.0.1"]],
    ["a loopback and a public address", ["127.0.0.1", "93.184.216.34"]],
    ["the metadata service", ["169.254.169.254"]],
  ];

  it.each(resolved)("a name resolving to %s is refused before dialling", async (_name, addrs) => {
    const target = `https://hooks.example.test:${canary.port}/`;
    // The name itself is unremarkable; only its addresses betray it.
    expect(checkDestinationUrl(target, closed).hostname).toBe("hooks.example.test");
    const asked: string[] = [];
    const resolve: Resolve = async (host) => {
      asked.push(host);
      return resolvesTo(...addrs)(host);
    };
    const result = await send(target, { resolve });
    expect(asked).toEqual(["hooks.example.test"]);
    expect(result.statusCode).toBeUndefined();
    expect(result.refused).toBe(true);
    expect(result.error).toMatch(/^hooks\.example\.test resolves to destination .* not allowed$/);
  });

  it("allowPrivate does not open loopback", async () => {
    for (const target of [
      `https://127.0.0.1:${canary.port}/`,
      `http://127.0.0.1:${canary.port}/`,
    ]) {
      expect(rejection(() => checkDestinationUrl(target, privateOk)).message).toMatch(/loopback/);
      const result = await send(target, { policy: privateOk });
      expect(result.error).toMatch(/loopback/);
    }
    const byName = await send(`https://internal.test:${canary.port}/`, {
      policy: privateOk,
      resolve: resolvesTo("127.0.0.1"),
    });
    expect(byName.error).toMatch(/loopback/);
  });
});

describe("blockedAddressReason and the address table", () => {
  const blocked: [string, RegExp][] = [
    ["10.0.0.1", /private/],
    ["172.16.5.4", /private/],
    ["192.168.1.1", /private/],
    ["169.254.169.254", /metadata/],
    ["169.254.1.1", /link-local/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["224.0.0.1", /multicast/],
    ["255.255.255.255", /broadcast/],
    ["198.18.0.1", /reserved/],
    ["240.0.0.1", /reserved/],
    ["fd00::1", /unique-local/],
    ["fe80::1", /link-local/],
    ["ff02::1", /multicast/],
    ["2001:db8::1", /reserved/],
    ["::ffff:169.254.169.254", /metadata/],
    ["::ffff:10.0.0.1", /private \(RFC 1918\) \(10\.0\.0\.1\)/],
  ];

  it.each(blocked)("%s is refused, as an address and as a URL host", (address, why) => {
    expect(blockedAddressReason(address, closed)).toMatch(why);
    expect(blockedAddressReason(address, closed)).toMatch(/which is not allowed$/);
    const host = address.includes(":") ? `[${address}]` : address;
    expect(rejection(() => checkDestinationUrl(`https://${host}/hook`, closed)).message).toMatch(
      why,
    );
  });

  it("public addresses pass, in either family and IPv4-mapped", () => {
    for (const address of ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(blockedAddressReason(address, closed)).toBeUndefined();
    }
    expect(checkDestinationUrl("https://8.8.8.8/hook", closed).hostname).toBe("8.8.8.8");
    expect(checkDestinationUrl("https://[2606:4700::1111]/", closed).hostname).toBe(
      "[2606:4700::1111]",
    );
    expect(blockedAddressReason("[2606:4700::1111]", closed)).toBeUndefined();
  });

  it("allowPrivate opens private, link-local, CGNAT and unique-local, but not metadata", () => {
    for (const address of ["10.0.0.1", "192.168.1.1", "169.254.1.1", "100.64.0.1", "fd00::1"]) {
      expect(blockedAddressReason(address, privateOk)).toBeUndefined();
    }
    expect(checkDestinationUrl("https://10.0.0.1/hook", privateOk).hostname).toBe("10.0.0.1");
    for (const address of ["169.254.169.254", "fd00:ec2::254", "127.0.0.1", "0.0.0.0", "::1"]) {
      expect(blockedAddressReason(address, privateOk)).toMatch(/not allowed/);
    }
  });

  it("allowLoopback opens loopback only, never the unspecified address", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) {
      expect(blockedAddressReason(address, loopbackOk)).toBeUndefined();
    }
    for (const address of ["0.0.0.0", "::", "10.0.0.1", "64:ff9b::7f00:1"]) {
      expect(blockedAddressReason(address, loopbackOk)).toMatch(/not allowed/);
    }
  });

  it("text that is not an address is refused", () => {
    expect(blockedAddressReason("example.com", loopbackOk)).toMatch(/not an IP address/);
    expect(blockedAddressReason("", loopbackOk)).toMatch(/not an IP address/);
  });
});

describe("checkDestinationUrl", () => {
  it.each([
    ["not a URL", "not a url", /not a valid absolute URL/],
    ["a relative path", "/hooks/1", /not a valid absolute URL/],
    ["ftp", "ftp://example.com/hook", /must use https, not ftp/],
    ["file", "file:///etc/passwd", /must use https, not file/],
    ["credentials", "https://user:pw@example.com/", /credentials/],
    ["a user name alone", "https://user@example.com/", /credentials/],
    ["an empty host", "https://", /not a valid absolute URL/],
    ["an empty host with a port", "https://:443/", /not a valid absolute URL/],
    ["plain http to a public name", "http://example.com/hook", /must use https/],
  ])("rejects %s", (_name, raw, why) => {
    expect(rejection(() => checkDestinationUrl(raw, closed)).message).toMatch(why);
  });

  it("accepts an https URL and returns it parsed", () => {
    const url = checkDestinationUrl("https://example.com/hook", closed);
    expect(url.href).toBe("https://example.com/hook");
  });

  it("allows plain http only to loopback, and only when loopback is allowed", () => {
    expect(checkDestinationUrl("http://localhost:3000/h", loopbackOk).port).toBe("3000");
    expect(checkDestinationUrl("http://127.0.0.1:3000/h", loopbackOk).hostname).toBe("127.0.0.1");
    expect(checkDestinationUrl("http://[::1]:3000/h", loopbackOk).hostname).toBe("[::1]");
    expect(rejection(() => checkDestinationUrl("http://example.com/", loopbackOk)).message).toMatch(
      /must use https/,
    );
    expect(rejection(() => checkDestinationUrl("http://10.0.0.1/", privateOk)).message).toMatch(
      /must use https/,
    );
  });
});

describe("sendOutbound against loopback receivers (allowLoopback)", () => {
  const listeners: Listener[] = [];
  const receiver = async (respond: Parameters<typeof listen>[0], host?: string) => {
    const l = await listen(respond, host);
    listeners.push(l);
    return l;
  };
  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((l) => l.close()));
  });
  const post = (url: string, extra: Partial<OutboundRequest> = {}) =>
    send(url, { policy: loopbackOk, ...extra });

  it("delivers the exact body and headers and reports a 2xx as success", async () => {
    const r = await receiver((_req, res) => res.writeHead(204).end());
    const body = JSON.stringify({ event: "run.completed", text: "héllo" });
    const result = await post(`http://127.0.0.1:${r.port}/hook?x=1`, {
      body,
      headers: { "x-argus-event": "run.completed", Authorization: "Bearer t" },
    });
    expect(result).toMatchObject({ statusCode: 204, error: undefined, responseBody: "" });
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.method).toBe("POST");
    expect(got.url).toBe("/hook?x=1");
    expect(got.body).toBe(body);
    expect(got.headers).toMatchObject({
      "x-argus-event": "run.completed",
      authorization: "Bearer t",
      "content-type": "application/json",
      "user-agent": "Argus-Webhooks/1",
      "content-length": String(Buffer.byteLength(body)),
    });
  });

  it("keeps a content-type the caller gave and sends a Buffer body unchanged", async () => {
    const r = await receiver((_req, res) => res.end("thanks"));
    const body = Buffer.from([0x7b, 0x7d]);
    const result = await post(`http://127.0.0.1:${r.port}/`, {
      body,
      headers: { "Content-Type": "application/cloudevents+json" },
    });
    expect(result).toMatchObject({ statusCode: 200, error: undefined, responseBody: "thanks" });
    expect(r.received[0]!.headers["content-type"]).toBe("application/cloudevents+json");
    expect(r.received[0]!.body).toBe("{}");
  });

  it("dials an IPv6 loopback literal", async () => {
    const r = await receiver((_req, res) => res.end(), "::1");
    const result = await post(`http://[::1]:${r.port}/`);
    expect(result).toMatchObject({ statusCode: 200, error: undefined });
    expect(r.received[0]!.headers.host).toBe(`[::1]:${r.port}`);
  });

  it("returns a header node refuses as a result instead of throwing", async () => {
    const r = await receiver((_req, res) => res.end());
    const result = await post(`http://127.0.0.1:${r.port}/`, {
      headers: { "x-injected": "a\r\nhost: elsewhere" },
    });
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toMatch(/^request not sent: .*x-injected/);
    expect(r.connections()).toBe(0);
  });

  it("dials the addresses resolve returns for a name", async () => {
    const r = await receiver((_req, res) => res.end());
    const asked: string[] = [];
    const result = await post(`http://localhost:${r.port}/`, {
      resolve: async (host) => {
        asked.push(host);
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    expect(asked).toEqual(["localhost"]);
    expect(result.error).toBeUndefined();
    expect(r.received).toHaveLength(1);
  });

  it("reports a 500 with the start of its body, keeping maxResponseBytes of it", async () => {
    const r = await receiver((_req, res) => res.writeHead(500).end("x".repeat(10_000)));
    const result = await post(`http://127.0.0.1:${r.port}/`);
    expect(result.statusCode).toBe(500);
    expect(result.error).toBe(`HTTP 500: ${"x".repeat(200)}`);
    expect(result.responseBody).toHaveLength(4096);
    const small = await post(`http://127.0.0.1:${r.port}/`, { maxResponseBytes: 10 });
    expect(small.responseBody).toBe("x".repeat(10));
  });

  it("does not follow a redirect, not even to another loopback port", async () => {
    const canary = await receiver((_req, res) => res.end("followed"));
    const r = await receiver((_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${canary.port}/` }).end(),
    );
    const result = await post(`http://127.0.0.1:${r.port}/`);
    expect(canary.connections()).toBe(0);
    expect(result.statusCode).toBe(302);
    expect(result.error).toBe(`redirect to http://127.0.0.1:${canary.port}/ not followed`);
  });

  it("parses Retry-After as delta-seconds and as an HTTP-date", async () => {
    let retryAfter = "7";
    const r = await receiver((_req, res) =>
      res.writeHead(429, { "retry-after": retryAfter }).end(),
    );
    const seconds = await post(`http://127.0.0.1:${r.port}/`);
    expect(seconds).toMatchObject({ statusCode: 429, retryAfterMs: 7000 });
    expect(seconds.error).toMatch(/^HTTP 429/);

    retryAfter = new Date(Date.now() + 30_000).toUTCString();
    const dated = await post(`http://127.0.0.1:${r.port}/`);
    expect(dated.retryAfterMs).toBeGreaterThan(28_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(30_000);

    retryAfter = "soonish";
    expect((await post(`http://127.0.0.1:${r.port}/`)).retryAfterMs).toBeUndefined();
  });

  it("gives up on a receiver that never answers within the timeout", async () => {
    const r = await receiver(() => {});
    const started = performance.now();
    const result = await post(`http://127.0.0.1:${r.port}/`, { timeoutMs: 1000 });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(1100);
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toBe("timed out after 1000 ms");
  });

  it("ends within the timeout when the body stalls after the headers", async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("partial");
    });
    const started = performance.now();
    const result = await post(`http://127.0.0.1:${r.port}/`, { timeoutMs: 1000 });
    expect(performance.now() - started).toBeLessThan(1100);
    // The receiver accepted the delivery; the status is the verdict, the body just truncated.
    expect(result).toMatchObject({ statusCode: 200, error: undefined, responseBody: "partial" });
  });

  it("counts DNS resolution against the timeout", async () => {
    const started = performance.now();
    const result = await post("http://localhost:9/", {
      timeoutMs: 300,
      resolve: () => new Promise(() => {}),
    });
    expect(performance.now() - started).toBeLessThan(400);
    expect(result).toMatchObject({ statusCode: undefined, error: "timed out after 300 ms" });
  });

  it("sends nothing once the signal has aborted, and tears down an attempt under way", async () => {
    const held: http.IncomingMessage[] = [];
    const r = await receiver((req) => void held.push(req));
    const before = new AbortController();
    before.abort();
    const none = await post(`http://127.0.0.1:${r.port}/`, { signal: before.signal });
    expect(none).toMatchObject({ statusCode: undefined, error: "cancelled", refused: false });
    expect(r.connections()).toBe(0);

    const during = new AbortController();
    const pending = post(`http://127.0.0.1:${r.port}/`, { signal: during.signal });
    await expect.poll(() => held.length).toBe(1);
    const closed = new Promise((ok) => held[0]!.socket.once("close", ok));
    during.abort();
    expect(await pending).toMatchObject({ statusCode: undefined, error: "cancelled" });
    // The receiver sees its connection closed: the call is over on both ends.
    await closed;
  });

  it("reports a refused connection with no status", async () => {
    const gone = await listen(() => {});
    await gone.close();
    const result = await post(`http://127.0.0.1:${gone.port}/`);
    // The destination was allowed: a failure there may pass, so it is no refusal.
    expect(result).toMatchObject({
      statusCode: undefined,
      error: "connection refused",
      refused: false,
    });
  });

  it("reports a failed lookup", async () => {
    const result = await post("https://hooks.example.test/", {
      resolve: async () => {
        throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
      },
    });
    expect(result).toMatchObject({
      statusCode: undefined,
      error: "could not resolve hooks.example.test",
      refused: false,
    });
  });
});
