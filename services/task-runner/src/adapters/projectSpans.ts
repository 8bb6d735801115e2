import type { Client } from "@grpc/grpc-js";
import { callUnary, fromGrpcError, type CallCredential } from "@argus/platform";
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
  const options = (projectId: string) => ({
    credential: self,
    requestId: `task-spans-${projectId}`,
    deadlineMs: 30_000,
  });
  return {
    async page(req) {
      try {
        return await callUnary(
          channel,
          SpanDirectoryService.spansToEvaluate,
          req,
          options(req.projectId),
        );
      } catch (err) {
        throw fromGrpcError(err);
      }
    },
    async units(req) {
      try {
        return await callUnary(
          channel,
          SpanDirectoryService.unitsToEvaluate,
          req,
          options(req.projectId),
        );
      } catch (err) {
        throw fromGrpcError(err);
      }
    },
    async record(accountId, projectId, taskId, evaluations) {
      try {
        await callUnary(
          channel,
          SpanDirectoryService.recordSpanEvaluations,
          { accountId, projectId, taskId, evaluations },
          options(projectId),
        );
      } catch (err) {
        throw fromGrpcError(err);
      }
    },
  };
}
