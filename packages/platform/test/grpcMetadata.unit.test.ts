import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { requestOf, setRequest } from "../src/grpcMetadata.ts";

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
