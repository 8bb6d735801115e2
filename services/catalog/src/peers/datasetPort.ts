import { status, type Client, type ServiceError } from "@grpc/grpc-js";
import { callUnary, fromGrpcError, onwardCall, type CallContext } from "@argus/platform";
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
      try {
        const ref = await callUnary(
          channel,
          DatasetServiceService.getResourceRef,
          { type, id },
          onwardCall(ctx),
        );
        return { id: ref.id, spaceId: ref.spaceId, accountId: ref.accountId };
      } catch (err) {
        if ((err as Partial<ServiceError>).code === status.NOT_FOUND) return undefined;
        throw fromGrpcError(err);
      }
    },
  };
}

/** Until a dataset service is configured there are no datasets or experiments to tag. */
export const noDatasets: DatasetPort = { getResourceRef: () => Promise.resolve(undefined) };
