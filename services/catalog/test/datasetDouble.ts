import * as grpc from "@grpc/grpc-js";
import {
  DatasetServiceService,
  type GetResourceRefRequest,
  type ResourceRef,
} from "@argus/proto/dataset/v1/dataset";

/**
 * A test double at the one boundary the catalog does not own: a real gRPC server on loopback
 * implementing DatasetService with fixed data, answering NOT_FOUND for anything else.
 */
export async function startDatasetDouble(
  refs: Record<string, ResourceRef & { type: string }>,
): Promise<{ url: string; calls: GetResourceRefRequest[]; stop(): Promise<void> }> {
  const calls: GetResourceRefRequest[] = [];
  const server = new grpc.Server();
  server.addService(DatasetServiceService, {
    getResourceRef(
      call: grpc.ServerUnaryCall<GetResourceRefRequest, ResourceRef>,
      done: grpc.sendUnaryData<ResourceRef>,
    ) {
      calls.push(call.request);
      const ref = refs[call.request.id];
      if (!ref || ref.type !== call.request.type)
        return done({ code: grpc.status.NOT_FOUND, details: "not found" });
      done(null, { id: ref.id, spaceId: ref.spaceId, accountId: ref.accountId });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    url: `127.0.0.1:${port}`,
    calls,
    stop: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}
