import type { Client } from "@grpc/grpc-js";
import { ownCall, type CallContext, type CallCredential, callPeer } from "@argus/platform";
import { SpanDirectoryService } from "@argus/proto/tracing/v1/tracing";

/** Spans and traces belong to the tracing service: asked synchronously, as the catalog itself. */
export interface SpanPort {
  /** Which of `ids` are spans (SPAN) or traces (TRACE) of the project in the window. */
  present(
    ctx: CallContext,
    q: {
      projectId: string;
      granularity: "SPAN" | "TRACE";
      ids: readonly string[];
      startTime: string;
      endTime: string;
    },
  ): Promise<Set<string>>;
}

export function grpcSpanPort(channel: Client, self: CallCredential): SpanPort {
  return {
    async present(ctx, q) {
      const res = await callPeer(
        channel,
        SpanDirectoryService.presentRecords,
        { accountId: ctx.principal.accountId, ...q, ids: [...q.ids] },
        ownCall(ctx, self),
      );
      return new Set(res.ids);
    },
  };
}

/** Without a tracing service nothing can be checked: records reference spans by id, unchecked. */
export const uncheckedSpans: SpanPort = {
  present: (_ctx, q) => Promise.resolve(new Set(q.ids)),
};
