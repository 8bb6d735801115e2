import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Identity } from "./identities.ts";

export interface KeyBroker {
  /** `POST <url>/<identity>` answers `{"key": "<a key that works now>"}`. */
  url: string;
  close(): Promise<void>;
}

/**
 * The fuzzer's "login endpoint" (a Web Fuzzing Commons `loginEndpointAuth`): Schemathesis asks
 * it for a key at the start and again whenever a request comes back 401, so a run goes on as the
 * same identity after the fuzzer revoked or refreshed that identity's key.
 */
export async function startKeyBroker(identities: Identity[]): Promise<KeyBroker> {
  const byName = new Map(identities.map((i) => [i.name, i]));
  const server = createServer((req, res) => {
    const identity = byName.get((req.url ?? "").slice(1));
    if (req.method !== "POST" || !identity) {
      res.writeHead(404).end();
      return;
    }
    identity.key().then(
      (key) =>
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ key })),
      (err: unknown) => res.writeHead(503).end(err instanceof Error ? err.message : String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
