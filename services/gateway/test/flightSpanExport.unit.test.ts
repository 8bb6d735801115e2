import { describe, expect, it } from "vitest";
import { DomainError, encodeId } from "@argus/platform";
import { spanExportRequest } from "../src/flight/spanExport.ts";

const SPACE_UUID = "0b5d3f7e-8a1c-4e2b-9f3a-1c2d3e4f5a6b";
const SPACE = encodeId("Space", SPACE_UUID);

/** What the SDK 8.61.0 sends: json_format.MessageToJson of its RecordQueryDescriptor. */
const descriptor = (over: Record<string, unknown> = {}) => ({
  spaceId: SPACE,
  modelId: "my-project",
  environment: "TRACING",
  startTime: "2026-11-28T10:00:00Z",
  endTime: "2026-11-29T10:00:00Z",
  ...over,
});

function refusal(json: Record<string, unknown>): DomainError {
  try {
    spanExportRequest(json);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).type).toBe("invalid-request");
    return err as DomainError;
  }
  throw new Error("the descriptor was accepted");
}

describe("spanExportRequest (GetFlightInfo's RecordQueryDescriptor)", () => {
  it("takes the SDK's descriptor: internal space id, project name, the window as RFC 3339", () => {
    expect(spanExportRequest(descriptor())).toEqual({
      spaceId: SPACE_UUID,
      projectName: "my-project",
      startTime: "2026-11-28T10:00:00.000Z",
      endTime: "2026-11-29T10:00:00.000Z",
      filter: "",
      columns: [],
    });
  });

  it("passes the filter (trimmed) and the projected columns; snake_case names too", () => {
    const req = spanExportRequest({
      space_id: SPACE,
      model_id: "p",
      environment: 4,
      start_time: "2026-11-28T10:00:00Z",
      end_time: "2026-11-28T10:00:01Z",
      filter_expression: "  status_code = 'ERROR' ",
      projected_columns: ["context.span_id", "attributes.llm"],
      stream_chunk_size: "500",
      sample_rate: 1,
    });
    expect(req).toMatchObject({
      filter: "status_code = 'ERROR'",
      columns: ["context.span_id", "attributes.llm"],
    });
  });

  it("refuses other environments (classic ML export) by name", () => {
    expect(refusal(descriptor({ environment: "PRODUCTION" })).message).toMatch(
      /only environment TRACING .* not "PRODUCTION"/,
    );
    expect(refusal(descriptor({ environment: undefined })).message).toMatch(/TRACING/);
  });

  it("requires a space id, a project name and both times", () => {
    expect(refusal(descriptor({ spaceId: "" })).message).toMatch(/spaceId is required/);
    expect(refusal(descriptor({ spaceId: "nonsense" })).message).toMatch(/not a Space id/);
    expect(refusal(descriptor({ modelId: " " })).message).toMatch(/modelId .* is required/);
    expect(refusal(descriptor({ startTime: undefined })).message).toMatch(/startTime is required/);
    expect(refusal(descriptor({ endTime: undefined })).message).toMatch(/endTime is required/);
    expect(refusal(descriptor({ endTime: "yesterday" })).message).toMatch(/endTime is not/);
  });

  it("the window must not be empty: start before end, at its edge by one second", () => {
    const at = "2026-11-28T10:00:00Z";
    expect(refusal(descriptor({ startTime: at, endTime: at })).message).toMatch(
      /startTime must be before endTime/,
    );
    expect(() =>
      spanExportRequest(descriptor({ startTime: at, endTime: "2026-11-28T10:00:01Z" })),
    ).not.toThrow();
    expect(refusal(descriptor({ startTime: "2026-11-28T10:00:01Z", endTime: at })).message).toMatch(
      /before/,
    );
  });

  it("sampleRate: 1 is everything (no sample asked); below it is passed on; outside (0, 1] is malformed", () => {
    expect(spanExportRequest(descriptor({ sampleRate: 1 })).sampleRate).toBeUndefined();
    expect(spanExportRequest(descriptor({ sampleRate: 0.5 })).sampleRate).toBe(0.5);
    expect(spanExportRequest(descriptor({ sampleRate: Number.MIN_VALUE })).sampleRate).toBe(
      Number.MIN_VALUE,
    );
    for (const rate of [0, -0.1, 1.5, 1 + Number.EPSILON])
      expect(refusal(descriptor({ sampleRate: rate })).message, String(rate)).toBe(
        "the RecordQueryDescriptor: sampleRate must be above 0 and at most 1",
      );
  });

  it("refuses similarity search and a chunk size below 1; a malformed field is a 400", () => {
    expect(
      refusal(descriptor({ similaritySearchParams: { searchColumnName: "x" } })).message,
    ).toMatch(/similaritySearchParams is not served/);
    expect(refusal(descriptor({ streamChunkSize: "0" })).message).toMatch(
      /streamChunkSize must be positive/,
    );
    expect(() => spanExportRequest(descriptor({ streamChunkSize: "1" }))).not.toThrow();
    expect(refusal(descriptor({ streamChunkSize: "many" })).message).toMatch(/malformed/);
  });
});
