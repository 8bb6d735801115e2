import * as grpc from "@grpc/grpc-js";
import type { CallCredential } from "./callCredentials.ts";
import { legacyMetadata, setRequest } from "./grpcMetadata.ts";
import { recordDuration } from "./metrics.ts";

export interface StreamMethod<Req, Res> {
  path: string;
  requestSerialize(value: Req): Buffer;
  responseDeserialize(bytes: Buffer): Res;
}

export interface StreamCallOptions {
  /** Whom the call is for (see CallOptions.credential). */
  credential: CallCredential;
  requestId: string;
  clientIp?: string;
  /**
   * When the whole stream must be over; none by default: a bulk stream lasts as long as its
   * data, and ends when its caller cancels it (`signal`) instead.
   */
  deadline?: Date | undefined;
  /** Aborting cancels the call. */
  signal?: AbortSignal | undefined;
}

function metadataFor(path: string, opts: StreamCallOptions): grpc.Metadata {
  const md = new grpc.Metadata();
  opts.credential.attach(md, path);
  setRequest(md, opts.requestId, opts.clientIp);
  // A stream is not sent again once refused (its messages may be on their way): it carries
  // the entries of the version before 2026-12-04 as well, which its processes read, for the
  // rolling upgrade that runs both (a few entries are nothing beside a stream).
  const legacy = legacyMetadata(md);
  for (const [key, value] of Object.entries(legacy.getMap()))
    if (md.get(key).length === 0) md.set(key, value);
  return md;
}

/**
 * The duration of one streaming call, recorded once with the call's status. Its span is the gRPC
 * instrumentation's, which also carries the trace in the metadata.
 */
function observe(path: string): { end(err?: unknown): void } {
  const rpc = path.slice(1);
  const started = performance.now();
  let ended = false;
  return {
    end(err) {
      if (ended) return;
      ended = true;
      const code = err ? ((err as grpc.ServiceError).code ?? grpc.status.UNKNOWN) : grpc.status.OK;
      recordDuration("rpc.client.duration", (performance.now() - started) / 1000, {
        "rpc.method": rpc,
        "rpc.grpc.status_code": code,
      });
    },
  };
}

/** An upload in progress: messages go out one by one, then the answer comes back. */
export interface ClientStreamCall<Req, Res> {
  /** Resolves once the stream can take more (flow control): the caller's backpressure. */
  send(message: Req): Promise<void>;
  /** Half-closes the stream and waits for the answer. */
  finish(): Promise<Res>;
  /** Cancels the call: the service sees a cut stream, never a finished one. */
  cancel(): void;
}

/**
 * A client-streaming call. It is never retried: its messages were consumed as they went.
 * A failure of the call rejects the pending send and the finish alike.
 */
export function callClientStream<Req, Res>(
  client: grpc.Client,
  method: StreamMethod<Req, Res>,
  opts: StreamCallOptions,
): ClientStreamCall<Req, Res> {
  const observed = observe(method.path);
  let settle!: { resolve(res: Res): void; reject(err: unknown): void };
  const answer = new Promise<Res>((resolve, reject) => (settle = { resolve, reject }));
  // Whoever awaits first sees the failure; nobody awaiting it is not an unhandled rejection.
  answer.catch(() => undefined);
  const call = client.makeClientStreamRequest<Req, Res>(
    method.path,
    method.requestSerialize,
    method.responseDeserialize,
    metadataFor(method.path, opts),
    { deadline: opts.deadline ?? Infinity },
    (err, res) => {
      opts.signal?.removeEventListener("abort", cancel);
      observed.end(err ?? undefined);
      if (err) settle.reject(err);
      else settle.resolve(res as Res);
    },
  );
  const cancel = () => call.cancel();
  opts.signal?.addEventListener("abort", cancel, { once: true });
  if (opts.signal?.aborted) call.cancel();
  return {
    send: (message) =>
      new Promise<void>((resolve, reject) => {
        // The answer may come first (the service refused the upload): that is the error.
        answer.then(
          () => reject(new Error("the call was answered before the stream ended")),
          reject,
        );
        if (call.write(message)) resolve();
        else call.once("drain", () => resolve());
      }),
    finish: () => {
      call.end();
      return answer;
    },
    cancel,
  };
}

/**
 * A server-streaming call as an async iterable: each message is read when the consumer asks for
 * it (grpc-js reads on demand), so a slow consumer slows the service. Leaving the loop early
 * cancels the call.
 */
export async function* callServerStream<Req, Res>(
  client: grpc.Client,
  method: StreamMethod<Req, Res>,
  request: Req,
  opts: StreamCallOptions,
): AsyncGenerator<Res> {
  const observed = observe(method.path);
  const call = client.makeServerStreamRequest<Req, Res>(
    method.path,
    method.requestSerialize,
    method.responseDeserialize,
    request,
    metadataFor(method.path, opts),
    { deadline: opts.deadline ?? Infinity },
  );
  const cancel = () => call.cancel();
  opts.signal?.addEventListener("abort", cancel, { once: true });
  if (opts.signal?.aborted) call.cancel();
  let failure: unknown;
  try {
    for await (const message of call as AsyncIterable<Res>) yield message;
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    opts.signal?.removeEventListener("abort", cancel);
    // A consumer that stopped early (or failed) leaves nothing running at the service.
    call.cancel();
    observed.end(failure);
  }
}
