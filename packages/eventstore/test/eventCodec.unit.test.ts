import { describe, expect, it } from "vitest";
import {
  UndecodableEventError,
  decodeEvent,
  encodeEvent,
  encodeEventWithData,
} from "../src/messages/eventCodec.ts";
import type { StoredEvent } from "../src/types.ts";

const event: StoredEvent = {
  eventId: "0b7e4e35-55a4-4b4e-9d8e-3f5b1c2a9e10",
  streamId: "tag-1",
  streamVersion: 3,
  type: "TagRenamed",
  data: { name: "élan", nested: [1, null, { a: true }] },
  metadata: {
    actor: "user:1",
    traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  },
  globalPosition: 2n ** 62n + 5n,
  transactionId: 2n ** 55n + 7n,
  recordedAt: new Date("2026-01-02T03:04:05.678Z"),
};

describe("event codec", () => {
  it("round-trips an event, 64-bit positions included", () => {
    expect(decodeEvent(encodeEvent(event))).toEqual(event);
  });

  it("places the data after a head of any UTF-8 width, and the data's own wide characters", () => {
    const wide = {
      ...event,
      metadata: { ...event.metadata, who: "Zoë 中文 🎉" },
      data: { text: "🎉".repeat(3000), more: "é" },
    };
    const { data, ...rest } = wide;
    const payload = encodeEventWithData(rest, JSON.stringify(data));
    expect(decodeEvent(payload)).toEqual(wide);
    expect(payload.byteLength).toBe(Buffer.byteLength(new TextDecoder().decode(payload)));
  });

  it("publishes the data as the JSON text it is given (Postgres' own spelling of a jsonb)", () => {
    const { data: _data, ...rest } = event;
    const text = '{"name": "élan", "nested": [1, null, {"a": true}]}';
    const payload = encodeEventWithData(rest, text);
    expect(decodeEvent(payload)).toEqual(event);
    expect(new TextDecoder().decode(payload)).toContain(`"data":${text}}`);
  });

  it.each([
    ["not UTF-8", new Uint8Array([0xff, 0xfe, 0x00])],
    ["not JSON", new TextEncoder().encode("{nope")],
    ["not an object", new TextEncoder().encode("42")],
    ["missing fields", new TextEncoder().encode(JSON.stringify({ eventId: "x" }))],
    [
      "a position that is not a decimal",
      new TextEncoder().encode(
        JSON.stringify({
          ...JSON.parse(new TextDecoder().decode(encodeEvent(event))),
          globalPosition: 1.5,
        }),
      ),
    ],
  ])("rejects a payload that is %s", (_what, payload) => {
    expect(() => decodeEvent(payload)).toThrow(UndecodableEventError);
  });
});
