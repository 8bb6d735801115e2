import { Agent, type IncomingHttpHeaders, createServer, get, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listenLocal } from "@argus/testkit";
import { drainOnClose } from "../src/http/drain.ts";

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
}

/** A server answering "ok" (after `delayMs`), and the sockets it accepted. */
async function serve(delayMs = 0) {
  const sockets: Socket[] = [];
  const server: Server = createServer((_req, res) => {
    setTimeout(() => res.end("ok"), delayMs);
  });
  server.on("connection", (s: Socket) => sockets.push(s));
  const drain = drainOnClose(server);
  const port = await listenLocal(server);
  // One kept-alive connection at a time, as a polling client's pool reuses it.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const request = () =>
    new Promise<Answer>((resolve, reject) => {
      get({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      }).on("error", reject);
    });
  cleanups.push(() => {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });
  return { server, sockets, drain, request };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("draining the REST listener on stop", () => {
  it("answers the next request on a kept-alive connection, tells it to close, and ends once no connection is left", async () => {
    const { sockets, drain, request } = await serve();
    expect((await request()).headers.connection).toBe("keep-alive");
    // A grace far beyond the test's timeout: it ends only because the connection went.
    const stopped = drain(600_000);
    const during = await request();
    expect(during.status).toBe(200);
    expect(during.headers.connection).toBe("close");
    expect(sockets).toHaveLength(1);
    await stopped;
    await expect(request()).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("answers a request in flight when the drain begins, with Connection: close", async () => {
    const { drain, request } = await serve(100);
    const inFlight = request();
    await new Promise((r) => setTimeout(r, 20));
    const stopped = drain(600_000);
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe("close");
    await stopped;
  });

  it("closes a connection left idle through the whole grace at its end, and at once with no grace", async () => {
    for (const grace of [50, 0]) {
      const { sockets, drain, request } = await serve();
      await request();
      expect(sockets[0]!.destroyed).toBe(false);
      await drain(grace);
      expect(sockets[0]!.destroyed).toBe(true);
    }
  });
});
