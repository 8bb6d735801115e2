import { describe, expect, it } from "vitest";
import { aggregateOf, defaultSubject, mayCarryType } from "../src/messages/subject.ts";
import type { StoredEvent } from "../src/types.ts";

const event = (streamId: string, type: string): StoredEvent => ({
  streamId,
  type,
  eventId: "00000000-0000-4000-8000-000000000000",
  streamVersion: 1,
  globalPosition: 1n,
  transactionId: 1n,
  data: {},
  metadata: {},
  recordedAt: new Date(0),
});

describe("defaultSubject", () => {
  it("names argus.<service>.<aggregate>.<EventType>", () => {
    const subject = defaultSubject("identity");
    expect(subject(event("space-0192c0de-0000-7000-8000-000000000000", "SpaceCreated"))).toBe(
      "argus.identity.space.SpaceCreated",
    );
  });

  it("takes the aggregate from the stream id up to the first dash only", () => {
    expect(aggregateOf("apikey-1-2-3")).toBe("apikey");
    expect(aggregateOf("singleton")).toBe("singleton");
  });

  it("never lets an id widen or split a subject", () => {
    const subject = defaultSubject("cat.alog");
    expect(subject(event("a.b>-1", "Tag *Created"))).toBe("argus.cat_alog.a_b_.Tag__Created");
    expect(subject(event("-x", ""))).toBe("argus.cat_alog._._");
  });

  it("can root subjects elsewhere, e.g. per test", () => {
    expect(defaultSubject("svc", "t_123")(event("tag-1", "TagCreated"))).toBe(
      "t_123.svc.tag.TagCreated",
    );
  });
});

describe("mayCarryType", () => {
  const subject = defaultSubject("dataset");
  const wanted = mayCarryType(new Set(["DatasetDeleted", "Tag *Created"]));

  it("tells a wanted type from the subject the relay gave its event", () => {
    expect(wanted(subject(event("dataset-1", "DatasetDeleted")))).toBe(true);
    expect(wanted(subject(event("dataset-1", "DatasetExamplesUpdated")))).toBe(false);
    expect(wanted(subject(event("dataset-1", "Deleted")))).toBe(false);
  });

  it("matches a type whose token the subject changed, leaving the decoded type to decide", () => {
    expect(wanted(subject(event("tag-1", "Tag *Created")))).toBe(true);
    // The same token: the consumer decodes these and acks them unhandled.
    expect(wanted(subject(event("tag-1", "Tag_.Created")))).toBe(true);
    expect(wanted(subject(event("tag-1", "Tag *Updated")))).toBe(false);
  });
});
