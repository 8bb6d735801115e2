import type { Client } from "@grpc/grpc-js";
import { callUnary, createChannel, type ClientMethod } from "@argus/platform";
import type { ApiRequest } from "./http.ts";

/** A backing service as the gateway sees it: typed unary calls that carry the caller along. */
export interface Backend {
  readonly channel: Client;
  call<Req, Res>(
    method: ClientMethod<Req, Res>,
    request: Req,
    from: ApiRequest,
    opts?: { idempotent?: boolean },
  ): Promise<Res>;
  close(): void;
}

export function createBackend(
  address: string,
  principalSecret: string,
  deadlineMs = 5_000,
): Backend {
  const channel: Client = createChannel(address);
  return {
    channel,
    call: (method, request, from, opts) =>
      callUnary(channel, method, request, {
        principal: from.principal,
        principalSecret,
        requestId: from.requestId,
        clientIp: from.clientIp,
        deadlineMs,
        idempotent: opts?.idempotent ?? false,
      }),
    close: () => channel.close(),
  };
}
