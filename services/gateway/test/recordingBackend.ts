import type { Client } from "@grpc/grpc-js";
import type { ClientMethod } from "@argus/platform";
import type { Backend } from "../src/backend.ts";

/** What a fake backend answers one RPC with (a thrown error is the RPC's failure). */
type Answer = (request: unknown) => unknown;

/**
 * A backing service as the gateway sees it: answers by RPC name from `answers`, every request
 * recorded in `calls`; an RPC without an answer fails the test. `reset` empties both.
 */
export function recordingBackend() {
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
