import type { Server } from "node:http";
import type { Socket } from "node:net";

/** What an HTTP/2 client with prior knowledge (every gRPC client without TLS) sends first. */
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

export type Protocol = "http1" | "http2" | "undecided";

/** Which protocol a connection speaks, from its first bytes. */
export function protocolOf(first: Buffer): Protocol {
  const n = Math.min(first.length, PREFACE.length);
  if (first.subarray(0, n).equals(PREFACE.subarray(0, n)))
    return n === PREFACE.length ? "http2" : "undecided";
  return "http1";
}

export interface SharedPort {
  /** Sockets still being told apart, ended with the server. */
  close(): void;
}

/**
 * One port for REST (HTTP/1.1) and gRPC (HTTP/2 with prior knowledge: Flight, OTLP): each new
 * connection's first bytes say which, then the connection goes, those bytes put back, to the
 * HTTP server's own connection handling or to `http2` (a grpc-js connection injector). An HTTP/1.1
 * connection is handled exactly as before, only from its first bytes on: the cost is one look
 * per connection, none per request. A connection that sends nothing within the server's
 * `headersTimeout` is closed, as the HTTP server would have.
 */
export function shareHttpPort(server: Server, http2: (socket: Socket) => void): SharedPort {
  const http1 = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  const pending = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    pending.add(socket);
    let seen: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), server.headersTimeout || 60_000);
    const settle = () => {
      clearTimeout(timer);
      pending.delete(socket);
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.pause();
      socket.unshift(seen);
    };
    const onClose = () => {
      clearTimeout(timer);
      pending.delete(socket);
    };
    const onData = (chunk: Buffer) => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      const protocol = protocolOf(seen);
      if (protocol === "undecided") return;
      settle();
      if (protocol === "http2") http2(socket);
      else for (const listener of http1) listener.call(server, socket);
      // Each handler added its own reader; the bytes put back reach it now.
      process.nextTick(() => socket.resume());
    };
    socket.on("data", onData);
    socket.on("close", onClose);
  });
  return {
    close() {
      for (const socket of pending) socket.destroy();
      pending.clear();
    },
  };
}
