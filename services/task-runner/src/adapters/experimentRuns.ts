import type { Client } from "@grpc/grpc-js";
import { callUnary, fromGrpcError, type CallCredential } from "@argus/platform";
import {
  RunEvaluationDirectoryService,
  type RunEvaluation,
  type RunsToEvaluateResponse,
} from "@argus/proto/dataset/v1/dataset";

/** The dataset service's experiment runs, read and evaluated on the task runner's own behalf. */
export interface ExperimentRuns {
  page(
    accountId: string,
    experimentId: string,
    after: string,
    limit: number,
  ): Promise<RunsToEvaluateResponse>;
  record(
    accountId: string,
    experimentId: string,
    taskId: string,
    evaluations: RunEvaluation[],
  ): Promise<void>;
}

export function datasetExperimentRuns(channel: Client, self: CallCredential): ExperimentRuns {
  const options = (runId: string) => ({
    credential: self,
    requestId: `task-run-${runId}`,
    deadlineMs: 30_000,
  });
  return {
    async page(accountId, experimentId, after, limit) {
      try {
        return await callUnary(
          channel,
          RunEvaluationDirectoryService.runsToEvaluate,
          { accountId, experimentId, page: { limit, after } },
          options(experimentId),
        );
      } catch (err) {
        throw fromGrpcError(err);
      }
    },
    async record(accountId, experimentId, taskId, evaluations) {
      try {
        await callUnary(
          channel,
          RunEvaluationDirectoryService.recordRunEvaluations,
          { accountId, experimentId, taskId, evaluations },
          options(experimentId),
        );
      } catch (err) {
        throw fromGrpcError(err);
      }
    },
  };
}
