import type { Client } from "@grpc/grpc-js";
import { type CallCredential, type ClientMethod, callPeer } from "@argus/platform";
import {
  SpanDirectoryService,
  type SpanEvaluation,
  type SpansToEvaluateRequest,
  type SpansToEvaluateResponse,
  type UnitsToEvaluateRequest,
  type UnitsToEvaluateResponse,
} from "@argus/proto/tracing/v1/tracing";

/** The tracing service's spans, read and evaluated on the task runner's own behalf. */
export interface ProjectSpans {
  page(req: SpansToEvaluateRequest): Promise<SpansToEvaluateResponse>;
  /** A page of whole traces or sessions, each with its spans. */
  units(req: UnitsToEvaluateRequest): Promise<UnitsToEvaluateResponse>;
  record(
    accountId: string,
    projectId: string,
    taskId: string,
    evaluations: SpanEvaluation[],
  ): Promise<void>;
}

export function tracingProjectSpans(channel: Client, self: CallCredential): ProjectSpans {
  async function ask<Req, Res>(method: ClientMethod<Req, Res>, req: Req, projectId: string) {
    return callPeer(channel, method, req, {
      credential: self,
      requestId: `task-spans-${projectId}`,
      deadlineMs: 30_000,
    });
  }
  return {
    page: (req) => ask(SpanDirectoryService.spansToEvaluate, req, req.projectId),
    units: (req) => ask(SpanDirectoryService.unitsToEvaluate, req, req.projectId),
    async record(accountId, projectId, taskId, evaluations) {
      await ask(
        SpanDirectoryService.recordSpanEvaluations,
        { accountId, projectId, taskId, evaluations },
        projectId,
      );
    },
  };
}
