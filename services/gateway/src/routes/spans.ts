import { createHash } from "node:crypto";
import { DomainError } from "@argus/platform";
import { TracingServiceService } from "@argus/proto/tracing/v1/tracing";
import type { Backend } from "../backend.ts";
import { isSpace } from "../http/bodyText.ts";
import { cursorBinding } from "../http/cursor.ts";
import { JsonObjectText, type Body, type ResourceHandlers } from "../http/handler.ts";
import { pathId, utcInstant } from "./params.ts";

/** The body fields every span and trace operation shares. */
type WindowBody = Body<"list_spans" | "list_traces" | "annotate_spans" | "delete_spans">;

/**
 * The window as the service takes it: RFC 3339 UTC, "" for a bound left out (the service
 * applies the operation's default). A start after the end is a 400 here, as both are known.
 */
export function timeWindow(body: WindowBody): { startTime: string; endTime: string } {
  const start =
    body.start_time === undefined ? undefined : utcInstant(body.start_time, "start_time");
  const end = body.end_time === undefined ? undefined : utcInstant(body.end_time, "end_time");
  if (start && end && start.key > end.key)
    throw new DomainError("invalid-request", "'start_time' must not be after 'end_time'");
  return { startTime: start?.text ?? "", endTime: end?.text ?? "" };
}

/**
 * A body's `project_id` follows the rule of path ids: one of another type names nothing (404).
 * One that is not base64 at all the schema's `Id` has refused already (400).
 */
export const projectUuid = (publicId: string): string => pathId("Project", publicId, "project");

/** The column selection; both lists at once is a 422, checked before anything is looked up. */
function columns(body: Body<"list_spans">): {
  includedColumns: string[];
  excludedColumns: string[];
} {
  if (body.included_columns !== undefined && body.excluded_columns !== undefined)
    // 422, as the public API documents for this one (its other refusals are 400s).
    throw new DomainError(
      "validation-error",
      "give included_columns or excluded_columns, not both",
    );
  return {
    includedColumns: body.included_columns ?? [],
    excludedColumns: body.excluded_columns ?? [],
  };
}

/**
 * The gateway signs a list's cursor (paging.ts) over its query only, and these lists take
 * their filters in the body. So the position handed out starts with a digest of what the
 * service was asked (project, window, filter, columns): the cursor's signature covers it, and
 * a cursor sent back with another body is refused instead of resuming a different list.
 */
export function bodyDigest(operationId: string, filters: Record<string, unknown>): string {
  return createHash("sha256")
    .update(cursorBinding(operationId, {}, filters))
    .digest("base64url");
}

/** `<digest>.<service position>`; "" on the last page. (A base64url digest has no dot.) */
export const boundPosition = (digest: string, after: string): string =>
  after ? `${digest}.${after}` : "";

/** The service position of a verified cursor, or a 400 when it was made for another body. */
export function readBoundPosition(digest: string, position: string): string {
  if (position === "") return "";
  const dot = position.indexOf(".");
  if (dot < 0 || position.slice(0, dot) !== digest)
    throw new DomainError(
      "invalid-request",
      "the cursor is invalid or belongs to a different query",
    );
  return position.slice(dot + 1);
}

/**
 * The paging of a list whose filters come in its body: the page to ask the service for (the
 * cursor's position, checked against `filters`) and the cursor to hand out after its answer.
 */
export function bodyBoundPaging(
  operationId: string,
  filters: Record<string, unknown>,
  page: { limit: number; after: string },
) {
  const digest = bodyDigest(operationId, filters);
  return {
    page: { limit: page.limit, after: readBoundPosition(digest, page.after) },
    nextAfter: (answered: { nextAfter: string } | undefined) =>
      boundPosition(digest, answered?.nextAfter ?? ""),
  };
}

/** Whether text (a span or a trace the service wrote) is braced as one JSON object. */
function isObjectText(text: string): boolean {
  let i = 0;
  let j = text.length - 1;
  while (i <= j && isSpace(text.charCodeAt(i))) i++;
  while (j >= i && isSpace(text.charCodeAt(j))) j--;
  return i < j && text[i] === "{" && text[j] === "}";
}

/**
 * `{"<member>":[…]}` of the service's JSON texts, joined and never parsed: a page of 500 spans
 * with large attributes costs a join. The gateway adds `pagination`.
 */
export function itemsText(member: "spans" | "traces", items: readonly string[]): JsonObjectText {
  for (const item of items)
    if (!isObjectText(item))
      throw new Error(`the tracing service answered ${member} that are not JSON objects`);
  return new JsonObjectText(`{"${member}":[${items.join(",")}]}`);
}

/** `POST /v2/spans`, `POST /v2/spans/annotate`, `DELETE /v2/spans`. */
export function spanHandlers(tracing: Backend): ResourceHandlers<"spans"> {
  return {
    async list_spans(req) {
      const body = req.body;
      const selection = columns(body);
      const window = timeWindow(body);
      const filters = {
        projectId: projectUuid(body.project_id),
        ...window,
        filter: body.filter ?? "",
        ...selection,
      };
      const paging = bodyBoundPaging("list_spans", filters, req.page);
      const res = await tracing.call(
        TracingServiceService.listSpans,
        {
          ...filters,
          truncateStringLength: body.truncate_string_length ?? 0,
          page: paging.page,
        },
        req,
      );
      return {
        status: 200,
        body: itemsText("spans", res.spans),
        nextAfter: paging.nextAfter(res.page),
      };
    },

    async annotate_spans(req) {
      const body = req.body;
      // The SDK's RecordGranularity names SESSION too; Argus keeps no sessions to anchor on.
      if (body.granularity === "SESSION")
        throw new DomainError(
          "invalid-request",
          "granularity SESSION is not supported: annotate spans (SPAN) or traces (TRACE)",
        );
      const window = timeWindow(body);
      await tracing.call(
        TracingServiceService.annotateSpans,
        {
          projectId: projectUuid(body.project_id),
          ...window,
          granularity: body.granularity ?? "SPAN",
          // Already valid against the schema; the service reads the public shape as it is.
          annotations: JSON.stringify(body.annotations),
        },
        req,
      );
      return { status: 202 };
    },

    async delete_spans(req) {
      const body = req.body;
      const window = timeWindow(body);
      const res = await tracing.call(
        TracingServiceService.deleteSpans,
        { projectId: projectUuid(body.project_id), spanIds: body.span_ids, ...window },
        req,
      );
      return {
        status: 200,
        body: {
          completed: res.completed,
          deleted_span_ids: res.deletedSpanIds,
          not_deleted_span_ids: res.notDeletedSpanIds,
        },
      };
    },
  };
}
