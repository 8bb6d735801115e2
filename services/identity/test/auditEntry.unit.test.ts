import { describe, expect, it } from "vitest";
import {
  BULK_DATA_CHARS as AUDIT_VARIABLES_MAX_CHARS,
  bulkDataJson as auditVariables,
  type ConsumedEvent,
  type StoredEvent,
} from "@argus/eventstore";
import { auditEntryOf } from "../src/auditLogs/auditEntry.ts";
import { auditWindow, DEFAULT_WINDOW_MS } from "../src/auditLogs/auditLogQueries.ts";

const A = "0192f4a0-0000-7000-8000-000000000001";
const U = "0192f4a0-0000-7000-8000-000000000002";
const K = "0192f4a0-0000-7000-8000-000000000003";
const S = "0192f4a0-0000-7000-8000-000000000004";

function event(o: Partial<StoredEvent>): StoredEvent {
  return {
    globalPosition: 1n,
    transactionId: 1n,
    streamId: `space-${S}`,
    streamVersion: 1,
    eventId: "e1",
    type: "SpaceCreated",
    data: { id: S, name: "x" },
    metadata: {},
    recordedAt: new Date("2026-06-01T00:00:00Z"),
    ...o,
  };
}

describe("auditEntryOf", () => {
  it("takes who and from where from the metadata, what from the type and stream", () => {
    const e = auditEntryOf(
      event({
        metadata: {
          account_id: A,
          actor_user_id: U,
          actor_service_account_id: "",
          api_key_id: K,
          client_ip: "1.2.3.4",
          request_id: "r1",
        },
      }),
    );
    expect(e).toMatchObject({
      accountId: A,
      actorUserId: U,
      actorServiceAccountId: null,
      apiKeyId: K,
      clientIp: "1.2.3.4",
      requestId: "r1",
      operationName: "SpaceCreated",
      operationType: "MUTATION",
      resourceType: "space",
      resourceId: S,
      occurredAt: new Date("2026-06-01T00:00:00Z"),
    });
  });

  it("leaves out ingestion receipts, and keeps the span writes people make", () => {
    const spans = { streamId: `project_spans-${S}`, metadata: { account_id: A, actor_user_id: U } };
    expect(auditEntryOf(event({ ...spans, type: "SpansReceived", data: {} }))).toBeNull();
    for (const type of ["SpansAnnotated", "SpansDeleted"])
      expect(auditEntryOf(event({ ...spans, type, data: {} }))).toMatchObject({
        operationName: type,
        resourceType: "project_spans",
        actorUserId: U,
      });
  });

  it("falls back to the data's account (initialization's events) and skips account-less events", () => {
    expect(
      auditEntryOf(event({ metadata: { actor: "system:init" }, data: { account_id: A } }))
        ?.accountId,
    ).toBe(A);
    expect(
      auditEntryOf(
        event({ type: "AccountCreated", streamId: `account-${A}`, metadata: {}, data: { id: A } }),
      )?.accountId,
    ).toBe(A);
    expect(auditEntryOf(event({ metadata: {}, data: {} }))).toBeNull();
    // Values that are not uuids never reach the uuid columns.
    expect(auditEntryOf(event({ metadata: { account_id: "nope" }, data: {} }))).toBeNull();
  });

  describe("an event as it came off the bus (its data's text beside it)", () => {
    const utf8 = (text: string) => new TextEncoder().encode(text);
    /** `data` reads the text, and counts how often: the entry should not need it. */
    function fromBus(text: string, cut: boolean, metadata = { account_id: A }) {
      const reads = { n: 0 };
      const e: ConsumedEvent = {
        ...event({ metadata }),
        dataText: { bytes: utf8(text), cut },
        get data() {
          reads.n++;
          return JSON.parse(text) as unknown;
        },
      };
      return { e, reads };
    }
    const ids = (n: number) =>
      JSON.stringify({
        dataset_id: S,
        examples: Array.from({ length: n }, (_, i) => ({ id: `${S.slice(0, -4)}${1000 + i}` })),
      });

    it("keeps a bulk write's cut as it came, unread", () => {
      const text = ids(1000);
      expect(text.length).toBeGreaterThan(AUDIT_VARIABLES_MAX_CHARS);
      const { e, reads } = fromBus(text, true);
      const entry = auditEntryOf(e);
      expect(entry?.variablesJson).toBe(e.dataText?.bytes);
      expect(reads.n).toBe(0);
    });

    it("keeps a text within the bound as it came, and cuts a larger one that is whole", () => {
      const within = `{"name": "${"x".repeat(AUDIT_VARIABLES_MAX_CHARS - 12)}"}`;
      expect(utf8(within).byteLength).toBe(AUDIT_VARIABLES_MAX_CHARS);
      const kept = fromBus(within, false);
      expect(auditEntryOf(kept.e)?.variablesJson).toBe(kept.e.dataText?.bytes);
      expect(kept.reads.n).toBe(0);
      const whole = JSON.stringify({
        dataset_id: S,
        examples: [{ id: "e1", fields: { input: "x".repeat(AUDIT_VARIABLES_MAX_CHARS) } }],
      });
      const cut = fromBus(whole, false);
      expect(auditEntryOf(cut.e)?.variablesJson).toBe(auditVariables(JSON.parse(whole)));
      expect(JSON.parse(auditEntryOf(cut.e)!.variablesJson as string)).toEqual({
        dataset_id: S,
        examples: [{ id: "e1" }],
      });
    });

    it("reads the data for the account only when the metadata names none", () => {
      const { e, reads } = fromBus(
        JSON.stringify({ account_id: A }),
        false,
        {} as { account_id: string },
      );
      expect(auditEntryOf(e)?.accountId).toBe(A);
      expect(reads.n).toBeGreaterThan(0);
    });
  });
});

describe("auditWindow", () => {
  const now = new Date("2026-06-30T00:00:00Z");
  it("defaults: end now, start 30 days before end", () => {
    expect(auditWindow("", "", now)).toEqual({
      start: new Date(now.getTime() - DEFAULT_WINDOW_MS),
      end: now,
    });
    const end = "2026-06-10T00:00:00Z";
    expect(auditWindow("", end, now).start).toEqual(new Date(Date.parse(end) - DEFAULT_WINDOW_MS));
  });
  it("an inverted window is 400; equal bounds are allowed (inclusive)", () => {
    expect(() => auditWindow("2026-06-02T00:00:00Z", "2026-06-01T00:00:00Z", now)).toThrow(
      /start_time/,
    );
    expect(auditWindow("2026-06-01T00:00:00Z", "2026-06-01T00:00:00Z", now).start).toEqual(
      new Date("2026-06-01T00:00:00Z"),
    );
  });

  it("keeps the data whole up to its bound, and a bulk write's records as their ids beyond it", () => {
    const example = (n: number, size: number) => ({
      id: `e${n}`,
      fields: { input: "x".repeat(size) },
    });
    const small = { dataset_id: S, version_id: K, examples: [example(1, 10)] };
    expect(JSON.parse(auditVariables(small))).toEqual(small);
    // At the bound exactly the data is whole; one character more and the records are cut.
    const pad = (extra: number) => {
      const d = { dataset_id: S, examples: [example(1, 0)] };
      const size = AUDIT_VARIABLES_MAX_CHARS - JSON.stringify(d).length + extra;
      return { dataset_id: S, examples: [example(1, size)] };
    };
    expect(auditVariables(pad(0))).toBe(JSON.stringify(pad(0)));
    expect(JSON.parse(auditVariables(pad(1)))).toEqual({ dataset_id: S, examples: [{ id: "e1" }] });
    // The bound counts the JSON, escapes included: quotes take two characters each.
    const quotes = (extra: number) => {
      const d = { dataset_id: S, examples: [{ id: "e1", fields: { input: "" } }] };
      const size = AUDIT_VARIABLES_MAX_CHARS - JSON.stringify(d).length + extra;
      expect(size % 2).toBe(0);
      return { dataset_id: S, examples: [{ id: "e1", fields: { input: '"'.repeat(size / 2) } }] };
    };
    expect(auditVariables(quotes(0))).toBe(JSON.stringify(quotes(0)));
    expect(JSON.parse(auditVariables(quotes(2)))).toEqual({
      dataset_id: S,
      examples: [{ id: "e1" }],
    });
    const bulk = {
      experiment_id: S,
      at: "2026-06-01T00:00:00Z",
      runs: Array.from({ length: 1000 }, (_, n) => ({
        id: `r${n}`,
        example_id: `e${n}`,
        output: "y".repeat(50),
      })),
      example_ids: ["e1"],
    };
    expect(JSON.parse(auditVariables(bulk))).toEqual({
      ...bulk,
      runs: bulk.runs.map((r) => ({ id: r.id, example_id: r.example_id })),
    });
    expect(auditEntryOf(event({ data: bulk, metadata: { account_id: A } }))?.variablesJson).toBe(
      auditVariables(bulk),
    );
  });
});
