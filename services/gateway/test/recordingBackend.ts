import type { Client } from "@grpc/grpc-js";
import type { ClientMethod } from "@argus/platform";
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { Backend } from "../src/backend.ts";
import type { Handlers } from "../src/http/handler.ts";
import { callAsAlice, startGateway, type TestGateway } from "./startGateway.ts";

/** What a fake backend answers one RPC with (a thrown error is the RPC's failure). */
type Answer = (request: unknown) => unknown;

/**
 * A backing service as the gateway sees it: answers by RPC name from `answers`, every request
 * recorded in `calls`; an RPC without an answer fails the test. `reset` empties both.
 */
function recordingBackend() {
  const calls: { rpc: string; request: unknown }[] = [];
  const answers: Record<string, Answer> = {};
  const backend: Backend = {
    channel: {} as Client,
    deadlineMs: 5_000,
    async call<Req, Res>(method: ClientMethod<Req, Res>, request: Req): Promise<Res> {
      const rpc = method.path.split("/").pop()!;
      calls.push({ rpc, request });
      const answer = answers[rpc];
      if (!answer) throw new Error(`unexpected ${rpc}`);
      return answer(request) as Res;
    },
    close() {},
  };
  const reset = () => {
    calls.length = 0;
    for (const rpc of Object.keys(answers)) delete answers[rpc];
  };
  return { backend, calls, answers, reset };
}

/**
 * The gateway of one route test file: it serves the handlers `handlersOf` builds on a recording
 * backend, starts before the file's tests and closes after them, and the recording is emptied
 * before each test. `call` is a request of Alice's.
 */
export function routesOnRecording(handlersOf: (backend: Backend) => Partial<Handlers>) {
  const recording = recordingBackend();
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    gw = await startGateway(handlersOf(recording.backend));
  });
  afterAll(() => gw?.close());
  beforeEach(() => recording.reset());
  const gateway = (): TestGateway => {
    if (!gw) throw new Error("the gateway is not started yet");
    return gw;
  };
  const call = (method: string, path: string, body?: unknown) =>
    callAsAlice(gateway(), method, path, body);
  return { ...recording, gateway, call };
}
