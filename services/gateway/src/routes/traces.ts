import { TracingServiceService } from "@argus/proto/tracing/v1/tracing";
import type { Backend } from "../backend.ts";
import type { ResourceHandlers } from "../http/handler.ts";
import { bodyBoundPaging, itemsText, projectUuid, timeWindow } from "./spans.ts";

/** `POST /v2/traces`: a project's traces in a window, paged like the spans list. */
export function traceHandlers(tracing: Backend): ResourceHandlers<"traces"> {
  return {
    async list_traces(req) {
      const body = req.body;
      const window = timeWindow(body);
      const filters = {
        projectId: projectUuid(body.project_id),
        ...window,
        filter: body.filter ?? "",
      };
      const paging = bodyBoundPaging("list_traces", filters, req.page);
      const res = await tracing.call(
        TracingServiceService.listTraces,
        { ...filters, page: paging.page },
        req,
      );
      return {
        status: 200,
        body: itemsText("traces", res.traces),
        nextAfter: paging.nextAfter(res.page),
      };
    },
  };
}
