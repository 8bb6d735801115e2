import {
  callClientStream,
  callServerStream,
  type ClientMethod,
  type ClientStreamCall,
  type PrincipalSigner,
  type StreamMethod,
} from "@argus/platform";
import type { Backend } from "../backend.ts";
import { asCaller, type FlightCaller } from "./call.ts";

/**
 * A backing service as a Flight call uses it: its unary calls (as REST makes them) and its
 * streams, each for the Flight call's caller, signed with the gateway's key, and cancelled with
 * the Flight call.
 */
export interface BulkBackend {
  call<Req, Res>(method: ClientMethod<Req, Res>, request: Req, caller: FlightCaller): Promise<Res>;
  upload<Req, Res>(
    method: StreamMethod<Req, Res>,
    caller: FlightCaller,
  ): ClientStreamCall<Req, Res>;
  download<Req, Res>(
    method: StreamMethod<Req, Res>,
    request: Req,
    caller: FlightCaller,
  ): AsyncGenerator<Res>;
}

export function bulkBackend(backend: Backend, signer: PrincipalSigner): BulkBackend {
  const opts = (caller: FlightCaller) => ({
    credential: signer.sign(caller.principal),
    requestId: caller.ctx.requestId,
    clientIp: caller.ctx.clientIp,
    signal: caller.signal,
  });
  return {
    call: (method, request, caller) => backend.call(method, request, asCaller(caller)),
    upload: (method, caller) => callClientStream(backend.channel, method, opts(caller)),
    download: (method, request, caller) =>
      callServerStream(backend.channel, method, request, opts(caller)),
  };
}
