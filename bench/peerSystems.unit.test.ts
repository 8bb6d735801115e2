import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { listenLocal } from "@argus/testkit";
import { exportSpans } from "./peerSystems.ts";

let server: Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

/** A loopback OTLP receiver answering each export with the next of `answers`; what it received. */
async function receiver(
  answers: { status: number; body?: string; headers?: Record<string, string> }[],
) {
  const received: { body: Buffer; headers: Record<string, unknown>; at: number }[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ body: Buffer.concat(chunks), headers: req.headers, at: performance.now() });
      const answer = answers[Math.min(received.length - 1, answers.length - 1)]!;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? "");
    });
  });
  const port = await listenLocal(server);
  return { url: `http://127.0.0.1:${port}/v1/traces`, received };
}

describe("exportSpans", () => {
  const body = new Uint8Array([10, 0]);

  it("sends the export once when it is taken whole, with the headers and protobuf content type", async () => {
    const r = await receiver([{ status: 200 }]);
    expect(await exportSpans(r.url, { authorization: "Bearer k" }, body)).toEqual({});
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.body).toEqual(Buffer.from(body));
    expect(r.received[0]!.headers).toMatchObject({
      authorization: "Bearer k",
      "content-type": "application/x-protobuf",
    });
  });

  it("sends it again after 429, 502, 503 and 504, backing off from 100 ms, and counts them", async () => {
    const r = await receiver([
      { status: 503 },
      { status: 504 },
      { status: 429 },
      { status: 502 },
      { status: 200 },
    ]);
    const refused = await exportSpans(r.url, {}, body);
    expect(refused).toEqual({ "status 503": 1, "status 504": 1, "status 429": 1, "status 502": 1 });
    const gaps = r.received.slice(1).map((x, i) => x.at - r.received[i]!.at);
    // 100, 200, 400, 800 ms (timers fire no earlier than asked).
    expect(gaps.map((g, i) => g >= 100 * 2 ** i - 5)).toEqual([true, true, true, true]);
    expect(gaps[0]).toBeLessThan(1000);
  });

  it("waits the answer's Retry-After instead when it gives one", async () => {
    const r = await receiver([{ status: 504, headers: { "retry-after": "1" } }, { status: 200 }]);
    await exportSpans(r.url, {}, body);
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(995);
  });

  it("throws on an answer an exporter does not retry, and on a partial success", async () => {
    const bad = await receiver([{ status: 400, body: "bad span" }]);
    await expect(exportSpans(bad.url, {}, body)).rejects.toThrow(/: 400 bad span/);
    expect(bad.received).toHaveLength(1);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const partial = await receiver([{ status: 200, body: "\n\x08\x05" }]);
    await expect(exportSpans(partial.url, {}, body)).rejects.toThrow(/: 200 /);
  });

  it("sends it again when the connection fails, naming the cause", async () => {
    let first = true;
    const received: number[] = [];
    server = createServer((req, res) => {
      received.push(1);
      if (first) {
        first = false;
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on("end", () => res.end());
    });
    const port = await listenLocal(server);
    const refused = await exportSpans(`http://127.0.0.1:${port}/v1/traces`, {}, body);
    expect(received).toHaveLength(2);
    expect(Object.keys(refused)).toEqual([expect.stringMatching(/^fetch failed/)]);
  });
});
