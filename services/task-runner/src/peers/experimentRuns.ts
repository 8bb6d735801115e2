import type { Client } from "@grpc/grpc-js";
import { type CallCredential, type ClientMethod, callPeer } from "@argus/platform";
import {
  RunEvaluationDirectoryService,
  type ExamplesToRunRequest,
  type ExamplesToRunResponse,
  type RecordTaskExperimentRunsRequest,
  type RunEvaluation,
  type RunsToEvaluateResponse,
  type StartTaskExperimentRequest,
} from "@argus/proto/dataset/v1/dataset";

/**
 * The dataset service's experiments, on the task runner's own behalf: runs read and evaluated
 * (evaluation tasks), examples read and an experiment made and filled (RUN_EXPERIMENT tasks).
 */
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
  examples(req: ExamplesToRunRequest): Promise<ExamplesToRunResponse>;
  /** The experiment's id: made under `req.experimentId`, or found made before. */
  startExperiment(req: StartTaskExperimentRequest): Promise<string>;
  recordOutputs(req: RecordTaskExperimentRunsRequest): Promise<void>;
}

export function datasetExperimentRuns(channel: Client, self: CallCredential): ExperimentRuns {
  const call = async <Req, Res>(method: ClientMethod<Req, Res>, request: Req, key: string) => {
    return callPeer(channel, method, request, {
      credential: self,
      requestId: `task-run-${key}`,
      deadlineMs: 30_000,
    });
  };
  const D = RunEvaluationDirectoryService;
  return {
    page: (accountId, experimentId, after, limit) =>
      call(D.runsToEvaluate, { accountId, experimentId, page: { limit, after } }, experimentId),
    async record(accountId, experimentId, taskId, evaluations) {
      await call(
        D.recordRunEvaluations,
        { accountId, experimentId, taskId, evaluations },
        experimentId,
      );
    },
    examples: (req) => call(D.examplesToRun, req, req.datasetId),
    startExperiment: async (req) =>
      (await call(D.startTaskExperiment, req, req.experimentId)).experimentId,
    async recordOutputs(req) {
      await call(D.recordTaskExperimentRuns, req, req.experimentId);
    },
  };
}
