import { Metadata, status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { DomainError, PROBLEM_TYPES, fromGrpcError, toGrpcError } from "../src/errors.ts";

describe("error model", () => {
  it("every problem type survives the gRPC hop with its detail", () => {
    for (const type of Object.keys(PROBLEM_TYPES) as (keyof typeof PROBLEM_TYPES)[]) {
      const wire = toGrpcError(new DomainError(type, `detail of ${type}`));
      expect(wire.code).toBe(PROBLEM_TYPES[type].grpc);
      const back = fromGrpcError(wire);
      expect(back.type).toBe(type);
      expect(back.message).toBe(`detail of ${type}`);
    }
  });

  it("an unexpected exception crosses as INTERNAL without its message", () => {
    const wire = toGrpcError(new Error("secret stack detail"));
    expect(wire.code).toBe(status.INTERNAL);
    expect(wire.details).toBe("internal error");
  });

  it("transport failures without a problem trailer map to 503 and 504", () => {
    expect(fromGrpcError({ code: status.UNAVAILABLE, metadata: new Metadata() }).type).toBe(
      "service-unavailable",
    );
    expect(fromGrpcError({ code: status.DEADLINE_EXCEEDED }).type).toBe("gateway-timeout");
    expect(fromGrpcError(new Error("x")).type).toBe("internal-error");
  });
});
