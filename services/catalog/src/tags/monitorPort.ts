import type { Client } from "@grpc/grpc-js";
import { onwardCall, type CallContext, findOnPeer } from "@argus/platform";
import { MonitorServiceService } from "@argus/proto/tracing/v1/monitors";
import type { RowPlace } from "@argus/spaces";

/**
 * Monitors belong to the tracing service: where one lives (its project's space, and the
 * project, which may be restricted) is asked synchronously, as the caller, before its tags are
 * read or changed. Undefined when it does not exist or the caller may not read it.
 */
export interface MonitorPort {
  placeOf(ctx: CallContext, id: string): Promise<RowPlace | undefined>;
}

export function grpcMonitorPort(channel: Client): MonitorPort {
  return {
    async placeOf(ctx, id) {
      const ref = await findOnPeer(
        channel,
        MonitorServiceService.getMonitorRef,
        { id },
        onwardCall(ctx),
      );
      return ref && { accountId: ref.accountId, spaceId: ref.spaceId, projectId: ref.projectId };
    },
  };
}

/** Until a tracing service is configured there are no monitors to tag. */
export const noMonitors: MonitorPort = { placeOf: () => Promise.resolve(undefined) };
