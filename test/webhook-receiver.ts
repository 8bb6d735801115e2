import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import { listenLocal } from "@argus/testkit";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver does with one request: answer a status (with headers), or never answer. */
type Reply = { status: number; headers?: Record<string, string> } | "hang";

/**
 * A customer's webhook endpoint, for tests: a real HTTP server on loopback that records every
 * request and answers from a script (then 200), so retries, timeouts and Retry-After are real.
 */
export interface Receiver {
  url: string;
  received: Received[];
  /** TCP connections accepted (a canary: must stay 0 where Argus may not connect). */
  connections: number;
  /** The replies to the next requests, in order; afterwards every request gets 200. */
  script(replies: Reply[]): void;
  /** Resolves once `n` requests arrived (fails after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = "/hook"): Promise<Receiver> {
  const received: Received[] = [];
  let replies: Reply[] = [];
  let waiters: (() => void)[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      for (const w of waiters) w();
      const reply = replies.shift() ?? { status: 200 };
      if (reply === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status, { "content-type": "text/plain", ...reply.headers });
      res.end(reply.status < 300 ? "ok" : `status ${reply.status}`);
    });
  });
  const r: Receiver = {
    url: "",
    received,
    connections: 0,
    script(next) {
      replies = [...next];
    },
    async waitFor(n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline)
          throw new Error(`receiver got ${received.length} requests, wanted ${n}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
        waiters = [];
      }
      return received.slice(0, n);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on("connection", () => {
    r.connections += 1;
  });
  r.url = `http://127.0.0.1:${await listenLocal(server)}${path}`;
  return r;
}
