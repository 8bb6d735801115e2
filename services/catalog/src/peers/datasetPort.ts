import type { Client } from "@grpc/grpc-js";
import { onwardCall, type CallContext, findOnPeer } from "@argus/platform";
import { DatasetServiceService } from "@argus/proto/dataset/v1/dataset";

type ForeignResourceType = "dataset" | "experiment";

interface ForeignRef {
  id: string;
  spaceId: string;
  accountId: string;
}

/** Datasets and experiments belong to the dataset service: asked synchronously, as the caller. */
export interface DatasetPort {
  /** undefined when the resource does not exist or the caller may not read it. */
  getResourceRef(
    ctx: CallContext,
    type: ForeignResourceType,
    id: string,
  ): Promise<ForeignRef | undefined>;
}

export function grpcDatasetPort(channel: Client): DatasetPort {
  return {
    async getResourceRef(ctx, type, id) {
      const ref = await findOnPeer(
        channel,
        DatasetServiceService.getResourceRef,
        { type, id },
        onwardCall(ctx),
      );
      return ref && { id: ref.id, spaceId: ref.spaceId, accountId: ref.accountId };
    },
  };
}

/** Until a dataset service is configured there are no datasets or experiments to tag. */
export const noDatasets: DatasetPort = { getResourceRef: () => Promise.resolve(undefined) };
