import * as grpc from "@grpc/grpc-js";
import type { RecordBatch, Schema } from "apache-arrow";
import { DomainError } from "@argus/platform";
import type { ActionType, FlightDescriptor, FlightInfo, Result } from "@argus/proto/flight";
import {
  FlightDescriptor_DescriptorType,
  FlightServiceService,
  PutResult,
  type Action,
  type Empty,
  type Ticket,
} from "@argus/proto/flight";
import { DoGetRequest, DoPutRequest } from "@argus/proto/public/flight";
import { serveFlightCall, type FlightCallDeps, type FlightCaller } from "./call.ts";
import {
  decodeFlightData,
  encodeFlightData,
  FlightDataError,
  type FlightData,
} from "./flightData.ts";
import { readRecordBatches, schemaFrame, type IpcFrame } from "./ipc.ts";
import { invalid, jsonObject, requestCase } from "./requests.ts";

/**
 * `arrow.flight.protocol.FlightService` as the official SDK uses it (public-v2-flight.md §3):
 * DoPut, DoGet and DoAction carry a `public` request (JSON) naming what to do, and each is
 * dispatched to the handler of its request's case (`FlightHandlers`). A new request is one more
 * handler; the protocol (authentication, Arrow IPC, backpressure, errors) stays here.
 */

type Case<M> = M extends { request?: { $case: infer C } | undefined } ? C : never;
type ValueOf<M, C> = M extends { request?: infer R }
  ? Extract<NonNullable<R>, { $case: C; value: unknown }>["value"]
  : never;

/** A DoPut's Arrow stream, decoded batch by batch as it arrives. */
export interface FlightUpload {
  schema: Schema;
  batches: AsyncIterable<RecordBatch>;
}

/**
 * A DoGet's Arrow stream: its schema, then its record batches as IPC messages (header and
 * body), produced as the client takes them.
 */
export interface FlightDownload {
  schema: Schema;
  batches: AsyncIterable<IpcFrame>;
}

type DoPutHandler<V> = (
  request: V,
  upload: FlightUpload,
  caller: FlightCaller,
) => Promise<Uint8Array>;
type DoGetHandler<V> = (request: V, caller: FlightCaller) => Promise<FlightDownload>;
/** Answers a DoAction's body with the bodies of its results (the SDK reads the first). */
type DoActionHandler = (body: Uint8Array, caller: FlightCaller) => Promise<Uint8Array[]>;

export interface FlightHandlers {
  /** By the descriptor's DoPutRequest case; the answer is the PutResult's app_metadata. */
  doPut: { [C in Case<DoPutRequest>]?: DoPutHandler<ValueOf<DoPutRequest, C>> };
  /** By the ticket's DoGetRequest case. */
  doGet: { [C in Case<DoGetRequest>]?: DoGetHandler<ValueOf<DoGetRequest, C>> };
  /**
   * Tickets of this server's own making (those a GetFlightInfo hands out), by the single key of
   * their JSON object; tried when a ticket is no DoGetRequest.
   */
  ownTickets?: Record<string, DoGetHandler<unknown>>;
  /** GetFlightInfo of a CMD descriptor, given its command's bytes; absent: not served. */
  getFlightInfo?: (cmd: Uint8Array, caller: FlightCaller) => Promise<FlightInfo>;
  /** By action type, with a description for ListActions. */
  doAction: Record<string, { description: string; handle: DoActionHandler }>;
}

export interface FlightServiceOptions extends FlightCallDeps {
  handlers: FlightHandlers;
}

const unimplemented = (what: string) =>
  new DomainError("method-not-allowed", `${what} is not served by this Flight server`);

const flightDataSerializers = {
  requestSerialize: (m: Buffer) => m,
  requestDeserialize: (b: Buffer) => decodeFlightData(b),
  responseSerialize: (m: Buffer) => m,
  responseDeserialize: (b: Buffer) => decodeFlightData(b),
};

/**
 * The service definition grpc-js serves: the generated one, except that FlightData (most of
 * the bytes) goes through flightData.ts and already-encoded answers are sent as they are.
 */
export const flightServiceDefinition: grpc.ServiceDefinition = {
  ...FlightServiceService,
  doPut: { ...FlightServiceService.doPut, ...flightDataSerializers },
  doGet: { ...FlightServiceService.doGet, responseSerialize: (m: Buffer) => m },
};

/** Resolves once the call took `message`; rejects when the call ends first. */
function written(
  call: grpc.ServerWritableStream<unknown, Buffer> | grpc.ServerDuplexStream<unknown, Buffer>,
  message: Buffer,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason as Error);
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    call.write(message, (err?: Error | null) => {
      signal.removeEventListener("abort", stop);
      if (err) reject(err);
      else resolve();
    });
  });
}

/**
 * The client's messages until its half-close. A cancelled call (the client gone) never ends
 * the stream, so the iteration fails instead: a cut upload is never taken for a complete one.
 */
async function* messagesOf(
  call: grpc.ServerDuplexStream<FlightData, Buffer>,
  signal: AbortSignal,
): AsyncGenerator<FlightData> {
  const aborted = new Promise<never>((_, reject) => {
    const stop = () => reject(signal.reason as Error);
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
  aborted.catch(() => undefined);
  const errored = new Promise<never>((_, reject) =>
    call.once("error", (err: Error) =>
      reject(
        err instanceof FlightDataError
          ? invalid(`a FlightData message is malformed: ${err.message}`)
          : err,
      ),
    ),
  );
  errored.catch(() => undefined);
  const it = call[Symbol.asyncIterator]() as AsyncIterator<FlightData>;
  for (;;) {
    const next = await Promise.race([it.next(), aborted, errored]);
    if (next.done) return;
    yield next.value;
  }
}

async function sendDownload(
  call: grpc.ServerWritableStream<Ticket, Buffer>,
  download: FlightDownload,
  signal: AbortSignal,
): Promise<void> {
  await written(call, encodeFlightData(schemaFrame(download.schema)), signal);
  // One batch in flight at a time: the next is made when the client has taken this one.
  for await (const frame of download.batches) await written(call, encodeFlightData(frame), signal);
  call.end();
}

/** The request's name, once its command is known: its span and its log line say the same. */
function routeAs(caller: FlightCaller, route: string): void {
  caller.ctx.span.updateName(route);
  caller.ctx.route = route;
}

function parseTicket(ticket: Buffer, handlers: FlightHandlers) {
  const json = jsonObject(ticket, "the ticket");
  const request = DoGetRequest.fromJSON(json).request;
  if (request) {
    const handler = handlers.doGet[request.$case] as DoGetHandler<unknown> | undefined;
    if (!handler) throw unimplemented(`DoGet ${request.$case}`);
    return { name: request.$case, run: (c: FlightCaller) => handler(request.value, c) };
  }
  const keys = Object.keys(json);
  const own = keys.length === 1 ? handlers.ownTickets?.[keys[0]!] : undefined;
  if (own) return { name: keys[0]!, run: (c: FlightCaller) => own(json[keys[0]!], c) };
  throw invalid(
    `the ticket holds no request this server knows: expected one of ${Object.keys(handlers.doGet).join(", ")}`,
  );
}

export function flightServiceImplementation(
  opts: FlightServiceOptions,
): grpc.UntypedServiceImplementation {
  const { handlers } = opts;
  const answered = (code: grpc.status, details: string): grpc.ServiceError =>
    Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
  const refuse =
    (name: string): grpc.handleUnaryCall<unknown, unknown> =>
    (_call, callback) =>
      callback(answered(grpc.status.UNIMPLEMENTED, `${name} is not served by this Flight server`));

  const doPut: grpc.handleBidiStreamingCall<FlightData, Buffer> = (call) =>
    serveFlightCall(
      call,
      "DoPut",
      opts,
      async (caller) => {
        const messages = messagesOf(call, caller.signal);
        const first = await messages.next();
        if (first.done) throw invalid("the DoPut stream holds no message");
        const descriptor = first.value.descriptor;
        if (!descriptor || descriptor.type !== FlightDescriptor_DescriptorType.CMD)
          throw invalid("the first FlightData of a DoPut must carry a CMD descriptor");
        const request = requestCase(
          DoPutRequest.fromJSON(jsonObject(descriptor.cmd, "the descriptor's command")),
          "the descriptor's command",
          Object.keys(handlers.doPut),
        );
        const handler = handlers.doPut[request.$case] as DoPutHandler<unknown> | undefined;
        if (!handler) throw unimplemented(`DoPut ${request.$case}`);
        routeAs(caller, `DoPut ${request.$case}`);
        const rest = async function* () {
          yield first.value;
          yield* messages;
        };
        const upload = await readRecordBatches(rest());
        const answer = await handler(request.value, upload, caller);
        await written(
          call,
          Buffer.from(PutResult.encode({ appMetadata: Buffer.from(answer) }).finish()),
          caller.signal,
        );
        call.end();
      },
      (status) => call.emit("error", status),
    );

  const doGet: grpc.handleServerStreamingCall<Ticket, Buffer> = (call) =>
    serveFlightCall(
      call,
      "DoGet",
      opts,
      async (caller) => {
        const ticket = parseTicket(call.request.ticket, handlers);
        routeAs(caller, `DoGet ${ticket.name}`);
        await sendDownload(call, await ticket.run(caller), caller.signal);
      },
      (status) => call.emit("error", status),
    );

  const doAction: grpc.handleServerStreamingCall<Action, Result> = (call) =>
    serveFlightCall(
      call,
      "DoAction",
      opts,
      async (caller) => {
        const action = handlers.doAction[call.request.type];
        if (!action) throw unimplemented(`DoAction ${JSON.stringify(call.request.type)}`);
        routeAs(caller, `DoAction ${call.request.type}`);
        for (const body of await action.handle(call.request.body, caller))
          call.write({ body: Buffer.from(body) });
        call.end();
      },
      (status) => call.emit("error", status),
    );

  const getFlightInfo: grpc.handleUnaryCall<FlightDescriptor, FlightInfo> = (call, callback) =>
    serveFlightCall(
      call,
      "GetFlightInfo",
      opts,
      async (caller) => {
        const info = handlers.getFlightInfo;
        if (!info) throw unimplemented("GetFlightInfo");
        if (call.request.type !== FlightDescriptor_DescriptorType.CMD)
          throw invalid("GetFlightInfo takes a CMD descriptor (a path names nothing here)");
        callback(null, await info(call.request.cmd, caller));
      },
      (status) => callback(status),
    );

  const listActions: grpc.handleServerStreamingCall<Empty, ActionType> = (call) =>
    serveFlightCall(
      call,
      "ListActions",
      opts,
      async () => {
        for (const [type, a] of Object.entries(handlers.doAction))
          call.write({ type, description: a.description });
        call.end();
      },
      (status) => call.emit("error", status),
    );

  return {
    handshake: ((call: grpc.ServerDuplexStream<unknown, unknown>) =>
      call.emit(
        "error",
        answered(
          grpc.status.UNIMPLEMENTED,
          "Handshake is not served: send the API key with every call (auth-token-bin)",
        ),
      )) as grpc.handleBidiStreamingCall<unknown, unknown>,
    listFlights: ((call: grpc.ServerWritableStream<unknown, unknown>) =>
      call.emit(
        "error",
        answered(grpc.status.UNIMPLEMENTED, "ListFlights is not served by this Flight server"),
      )) as grpc.handleServerStreamingCall<unknown, unknown>,
    getFlightInfo,
    getSchema: refuse("GetSchema"),
    doGet,
    doPut,
    doExchange: ((call: grpc.ServerDuplexStream<unknown, unknown>) =>
      call.emit(
        "error",
        answered(grpc.status.UNIMPLEMENTED, "DoExchange is not served by this Flight server"),
      )) as grpc.handleBidiStreamingCall<unknown, unknown>,
    doAction,
    listActions,
  };
}
