import type { Client } from "@grpc/grpc-js";
import { type CallCredential, callPeer } from "@argus/platform";
import {
  EvaluatorDirectoryService,
  type EvaluatorRef,
  type ResolvedEvaluator,
} from "@argus/proto/catalog/v1/config_directory";

/** The catalog's evaluators, resolved on the task runner's own behalf (a continuous run's). */
export type EvaluatorResolver = (
  accountId: string,
  spaceId: string,
  refs: EvaluatorRef[],
) => Promise<ResolvedEvaluator[]>;

export function catalogEvaluators(channel: Client, self: CallCredential): EvaluatorResolver {
  return async (accountId, spaceId, evaluators) => {
    const res = await callPeer(
      channel,
      EvaluatorDirectoryService.resolveEvaluators,
      { accountId, spaceId, evaluators },
      { credential: self, requestId: `evaluators-${spaceId}` },
    );
    return res.evaluators;
  };
}
