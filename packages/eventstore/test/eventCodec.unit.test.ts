import { describe, expect, it } from "vitest";
import {
  UndecodableEventError,
  decodeEvent,
  decodeEventLazily,
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

  describe("decodeEventLazily", () => {
    const { data: _data, ...head } = event;
    const text = (e: { dataText?: { bytes: Uint8Array } }) =>
      new TextDecoder().decode(e.dataText?.bytes);

    it("gives the data's text as it came, and parses it only when read", () => {
      const dataText = '{"name": "élan", "nested": [1, null, {"a": true}]}';
      const lazy = decodeEventLazily(encodeEventWithData(head, dataText));
      expect(text(lazy)).toBe(dataText);
      expect(lazy.dataText?.cut).toBe(false);
      const { data, dataText: _t, ...rest } = lazy;
      expect(rest).toEqual(head);
      expect(data).toEqual(event.data);
      expect(decodeEventLazily(encodeEvent(event)).data).toEqual(event.data);
    });

    it("says when the data is a bulk write's cut", () => {
      expect(
        decodeEventLazily(encodeEventWithData(head, '{"x":[{"id":"a"}]}', true)).dataText,
      ).toMatchObject({ cut: true });
      // The eager decoding reads the same event, the flag aside.
      expect(decodeEvent(encodeEventWithData(head, "[]", true))).toEqual({ ...event, data: [] });
    });

    it("finds the event's own data member past look-alikes in the head", () => {
      const tricky = {
        ...head,
        metadata: {
          data: { data: 1 },
          note: ',"data":"no"',
          q: '\\",\\"data\\":',
          list: [{ data: 2 }],
        },
      };
      const lazy = decodeEventLazily(encodeEventWithData(tricky, '"the data"'));
      expect(lazy.metadata).toEqual(tricky.metadata);
      expect(lazy.data).toBe("the data");
      // Spaces around the member's colon, as any JSON writer may put them.
      const plain = new TextDecoder().decode(encodeEventWithData(head, "0"));
      const spaced = plain.replace(/,"data":0\}$/, ', "data" : [1] }');
      expect(spaced).not.toBe(plain);
      expect(decodeEventLazily(new TextEncoder().encode(spaced)).data).toEqual([1]);
    });

    it("takes the data as the last member: a head after it is not read as one", () => {
      const plain = new TextDecoder().decode(encodeEvent(event));
      const dataFirst = `{"data":1,${plain.slice(1, plain.indexOf(',"data":'))}}`;
      expect(decodeEvent(new TextEncoder().encode(dataFirst))).toEqual({ ...event, data: 1 });
      expect(() => decodeEventLazily(new TextEncoder().encode(dataFirst))).toThrow(
        UndecodableEventError,
      );
    });

    it.each([
      ["no data member", new TextEncoder().encode(JSON.stringify({ eventId: "x" }))],
      ["a head that is not an event", new TextEncoder().encode('{"eventId":"x","data":{}}')],
      ["no closing brace", new TextEncoder().encode('{"data":1')],
      [
        "not UTF-8 in its head",
        new Uint8Array([
          0x7b,
          0x22,
          0xff,
          0x22,
          0x3a,
          0x31,
          0x2c,
          ...new TextEncoder().encode('"data":1}'),
        ]),
      ],
    ])("rejects a payload with %s at once", (_what, payload) => {
      expect(() => decodeEventLazily(payload)).toThrow(UndecodableEventError);
    });

    it("rejects data that is not JSON when it is read", () => {
      const lazy = decodeEventLazily(encodeEventWithData(head, "{nope"));
      expect(text(lazy)).toBe("{nope");
      expect(() => lazy.data).toThrow(UndecodableEventError);
    });
  });
});
