import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callUnary, createChannel, type ClientMethod } from "../src/grpcClient.ts";
import { telemetryRunning } from "../src/telemetry.ts";

// Without the SDK a call goes straight onto the channel (grpcClient.ts `viaChannel`); these pin
// its answers to those of grpc-js's own Client for the same call, case by case.

const bytes = (b: Buffer) => b;
const PATH = "/test.Echo/Call";

/** Echoes the request; `fail:<code>` answers that status with a trailer; `slow` waits 5 s. */
const handler = (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
  const text = call.request.toString();
  if (text.startsWith("fail:")) {
    const metadata = new grpc.Metadata();
    metadata.set("x-why", "because");
    done({ code: Number(text.slice(5)), details: "refused here", metadata });
  } else if (text === "slow") setTimeout(() => done(null, call.request), 5_000);
  else done(null, call.request);
};

let server: grpc.Server;
let client: grpc.Client;
beforeAll(async () => {
  server = new grpc.Server();
  const method = {
    path: PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: bytes,
    requestDeserialize: bytes,
    responseSerialize: bytes,
    responseDeserialize: bytes,
  };
  server.addService({ call: method }, { call: handler });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  client = createChannel(`127.0.0.1:${port}`);
});
afterAll(() => {
  client?.close();
  server?.forceShutdown();
});

const text: ClientMethod<string, string> = {
  path: PATH,
  requestSerialize: (s) => Buffer.from(s),
  responseDeserialize: (b) => b.toString(),
};
const nobody = { credential: { attach: () => undefined }, requestId: "r", idempotent: false };

/** grpc-js's own Client, for the same method and request: the reference answer. */
function reference<Req, Res>(method: ClientMethod<Req, Res>, req: Req, signal?: AbortSignal) {
  return new Promise<Res | grpc.ServiceError>((resolve) => {
    const call = client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      req,
      new grpc.Metadata(),
      { deadline: new Date(Date.now() + 5_000) },
      (err, res) => resolve(err ?? (res as Res)),
    );
    signal?.addEventListener("abort", () => call.cancel());
  });
}

const ours = <Req, Res>(method: ClientMethod<Req, Res>, req: Req, signal?: AbortSignal) =>
  callUnary(client, method, req, { ...nobody, signal }).catch((e: grpc.ServiceError) => e);

const statusOf = (r: unknown) => {
  const e = r as grpc.ServiceError;
  return { code: e.code, details: e.details, message: e.message };
};

describe("a call straight onto the channel answers as grpc-js's Client does", () => {
  it("runs without the SDK here (so these exercise that path)", () => {
    expect(telemetryRunning()).toBe(false);
  });

  it("an answer", async () => {
    expect(await ours(text, "hello")).toBe("hello");
    expect(await reference(text, "hello")).toBe("hello");
  });

  it("a status, with its details and trailing metadata", async () => {
    for (const code of [grpc.status.NOT_FOUND, grpc.status.UNAVAILABLE, grpc.status.INTERNAL]) {
      const got = await ours(text, `fail:${code}`);
      expect(statusOf(got)).toEqual(statusOf(await reference(text, `fail:${code}`)));
      expect(statusOf(got)).toMatchObject({ code, details: "refused here" });
      expect((got as grpc.ServiceError).metadata.get("x-why")).toEqual(["because"]);
    }
  });

  const throwing = (message: string) => () => {
    throw new Error(message);
  };
  it.each([
    {
      what: "a response the caller cannot read",
      method: { ...text, responseDeserialize: throwing("not this shape") },
      details: "Response message parsing error: not this shape",
    },
    {
      what: "a request that cannot be serialized",
      method: { ...text, requestSerialize: throwing("no bytes for this") },
      details: "Request message serialization failure: no bytes for this",
    },
  ])("$what", async ({ method, details }) => {
    const got = await ours(method, "x");
    expect(statusOf(got)).toEqual(statusOf(await reference(method, "x")));
    expect(statusOf(got)).toMatchObject({ code: grpc.status.INTERNAL, details });
  });

  it("a call its caller gives up on", async () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const pending = [ours(text, "slow", a.signal), reference(text, "slow", b.signal)];
    setTimeout(() => (a.abort(), b.abort()), 100);
    const [got, want] = await Promise.all(pending);
    expect(statusOf(got)).toEqual(statusOf(want));
    expect(statusOf(got)).toMatchObject({ code: grpc.status.CANCELLED });
  });

  it("a call past its deadline", async () => {
    const got = await callUnary(client, text, "slow", { ...nobody, deadlineMs: 100 }).catch(
      (e: grpc.ServiceError) => e,
    );
    expect(statusOf(got)).toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
  });
});
