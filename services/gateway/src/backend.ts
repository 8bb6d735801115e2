import type { Client } from "@grpc/grpc-js";
import { DEFAULT_DEADLINE_MS, callUnary, createChannel, type ClientMethod } from "@argus/platform";
import type { ApiRequest } from "./http.ts";

/**
 * A backing service as the gateway sees it: typed unary calls that carry the caller along.
 * Each call gets the first deadline of its chain; whether it is retried is the method's
 * `idempotency_level` in proto/.
 */
export interface Backend {
  readonly channel: Client;
  /** The budget of one call, retries included (ARGUS_GRPC_DEADLINE_MS). */
  readonly deadlineMs: number;
  call<Req, Res>(method: ClientMethod<Req, Res>, request: Req, from: ApiRequest): Promise<Res>;
  close(): void;
}

export function createBackend(
  address: string,
  principalSecret: string,
  deadlineMs = DEFAULT_DEADLINE_MS,
): Backend {
  const channel: Client = createChannel(address);
  return {
    channel,
    deadlineMs,
    call: (method, request, from) =>
      callUnary(channel, method, request, {
        principal: from.principal,
        principalSecret,
        requestId: from.requestId,
        clientIp: from.clientIp,
        deadlineMs,
      }),
    close: () => channel.close(),
  };
}
