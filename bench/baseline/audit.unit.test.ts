import { describe, expect, it } from "vitest";
import { auditedEventText, splitAuditedEvent } from "./audit.ts";

describe("the two-hop floor's audited event", () => {
  const ids =
    '[{"id":"0190a000-0000-7000-8000-000000000001"},{"id":"0190a000-0000-7000-8000-000000000002"}]';
  const text = auditedEventText("bench_two_hop-d1", "d1", ids);

  it("is one JSON object whose data is the examples as their ids", () => {
    const event = JSON.parse(text) as { stream_id: string; data: { examples: unknown } };
    expect(event.stream_id).toBe("bench_two_hop-d1");
    expect(event.data.examples).toEqual(JSON.parse(ids));
  });

  it("splits into its head and its data's text, as the consumer reads it", () => {
    const { head, dataText } = splitAuditedEvent(text);
    const whole = JSON.parse(text) as { data: unknown; event_id: string };
    expect(head.event_id).toBe(whole.event_id);
    expect(head.type).toBe("BenchFloorUpdated");
    expect(JSON.parse(dataText)).toEqual(whole.data);
  });

  it("refuses text that is not one", () => {
    expect(() => splitAuditedEvent('{"event_id":"x"}')).toThrow("not an audited event");
  });
});
