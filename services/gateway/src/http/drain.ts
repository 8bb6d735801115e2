import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * Stops an HTTP/1.1 server without failing a client that reuses a kept-alive connection.
 *
 * `server.close()` closes idle connections at once, and that races a client sending on one just
 * then: it sees the socket close under its request, which it cannot safely retry (a polling
 * client through a Service saw `UND_ERR_SOCKET` once in ~1 500 requests of a rolling upgrade).
 * HTTP/1.1 cannot tell an idle client to go away; it can only answer with `Connection: close`.
 * So for up to `graceMs` the listener stays open and every answer says so: each client's next
 * request on a pooled connection is answered, and its one after goes to a new connection (behind
 * a Service, to another pod, this one's endpoint being gone by then). The grace ends as soon as
 * no connection is left; only connections unused through all of it are closed while idle.
 */
export function drainOnClose(server: Server): (graceMs: number) => Promise<void> {
  const open = new Set<Socket>();
  const answering = new Set<ServerResponse>();
  let draining = false;
  let emptied: (() => void) | undefined;
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      if (open.size === 0) emptied?.();
    });
  });
  // Before the app's own listener, which may answer synchronously.
  server.prependListener("request", (_req, res) => {
    if (draining) return void res.setHeader("Connection", "close");
    answering.add(res);
    res.once("close", () => answering.delete(res));
  });
  return async (graceMs) => {
    draining = true;
    // An answer already begun keeps its connection; it is closed idle when the grace ends.
    for (const res of answering) if (!res.headersSent) res.setHeader("Connection", "close");
    answering.clear();
    if (graceMs > 0 && open.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        emptied = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
