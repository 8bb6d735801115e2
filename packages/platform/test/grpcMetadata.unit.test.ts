import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { legacyMetadata, requestOf, setRequest } from "../src/grpcMetadata.ts";

const roundTrip = (requestId: string, clientIp?: string) => {
  const md = new Metadata();
  setRequest(md, requestId, clientIp);
  return { entries: Object.keys(md.getMap()), ...requestOf(md) };
};

describe("a call's request in its metadata", () => {
  it("carries the request id and the client's address in one entry", () => {
    expect(roundTrip("req-1", "203.0.113.7")).toEqual({
      entries: ["argus-request"],
      requestId: "req-1",
      clientIp: "203.0.113.7",
    });
    expect(roundTrip("req-2", "::ffff:127.0.0.1")).toMatchObject({ clientIp: "::ffff:127.0.0.1" });
  });

  it("has an empty address for a call that began inside, whatever its id holds", () => {
    expect(roundTrip("job 42")).toMatchObject({ requestId: "job 42", clientIp: "" });
    expect(roundTrip("job 42", "10.0.0.1")).toMatchObject({
      requestId: "job 42",
      clientIp: "10.0.0.1",
    });
  });

  it("reads as empty from a call that carries none", () => {
    expect(requestOf(new Metadata())).toEqual({ requestId: "", clientIp: "" });
  });
});

describe("a request from a process of the version before 2026-12-04", () => {
  it("is read from its two entries, and written as them for such a process", () => {
    const old = new Metadata();
    old.set("x-request-id", "req-9");
    old.set("x-client-ip", "10.0.0.2");
    expect(requestOf(old)).toEqual({ requestId: "req-9", clientIp: "10.0.0.2" });

    const md = new Metadata();
    setRequest(md, "req-9", "10.0.0.2");
    const legacy = legacyMetadata(md);
    expect(legacy.getMap()).toEqual({ "x-request-id": "req-9", "x-client-ip": "10.0.0.2" });
    const inside = new Metadata();
    setRequest(inside, "job 1");
    expect(legacyMetadata(inside).getMap()).toEqual({ "x-request-id": "job 1" });
  });
});
