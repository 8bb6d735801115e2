import { Metadata, status } from "@grpc/grpc-js";
import { DomainError, toGrpcError } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { GatewayError, problemBody, toDomainError } from "../src/http/problem.ts";

const ctx = { errorsBase: "https://argus.dev/errors", instance: "/v2/spaces", requestId: "req-1" };

describe("problem rendering", () => {
  it("renders every field from the problem type table", () => {
    expect(
      problemBody(new DomainError("resource-conflict", "a space named 'x' exists"), ctx),
    ).toEqual({
      type: "https://argus.dev/errors#resource-conflict",
      title: "Resource conflict",
      status: 409,
      detail: "a space named 'x' exists",
      instance: "/v2/spaces",
      request_id: "req-1",
    });
  });

  it("falls back to the title when a detail is empty", () => {
    expect(problemBody(new DomainError("access-forbidden", ""), ctx).detail).toBe(
      "Access forbidden",
    );
  });

  it("keeps the headers of gateway errors", () => {
    const e = new GatewayError("rate-limit-exceeded", "slow down", { "Retry-After": "3" });
    expect(e).toBeInstanceOf(DomainError);
    expect(problemBody(e, ctx).status).toBe(429);
    expect(e.headers).toEqual({ "Retry-After": "3" });
  });
});

describe("error translation", () => {
  it("passes domain errors through", () => {
    const e = new DomainError("invalid-request", "bad");
    expect(toDomainError(e)).toEqual({ error: e, unexpected: false });
  });

  it("recovers the problem type a service sent over gRPC", () => {
    const wire = {
      ...toGrpcError(new DomainError("resource-conflict", "taken")),
      message: "6 ALREADY_EXISTS: taken",
    };
    const { error, unexpected } = toDomainError(wire);
    expect([error.type, error.message, unexpected]).toEqual(["resource-conflict", "taken", false]);
  });

  it("maps transport failures and flags unknown gRPC failures for the log", () => {
    const unavailable = {
      code: status.UNAVAILABLE,
      details: "no connection",
      metadata: new Metadata(),
    };
    expect(toDomainError(unavailable).error.type).toBe("service-unavailable");
    const unknown = toDomainError({
      code: status.UNKNOWN,
      details: "boom",
      metadata: new Metadata(),
    });
    expect([unknown.error.type, unknown.error.message, unknown.unexpected]).toEqual([
      "internal-error",
      "internal error",
      true,
    ]);
  });

  it("hides internal errors", () => {
    const { error, unexpected } = toDomainError(
      new TypeError("x is undefined at secret/place.ts:12"),
    );
    expect([error.type, error.message, unexpected]).toEqual([
      "internal-error",
      "internal error",
      true,
    ]);
  });

  it("maps client errors raised by Express", () => {
    const decode = Object.assign(new Error("Failed to decode param '%E0'"), {
      status: 400,
      expose: true,
    });
    expect(toDomainError(decode).error.type).toBe("invalid-request");
    const hidden = Object.assign(new Error("secret"), { status: 400, expose: false });
    expect(toDomainError(hidden).error.type).toBe("internal-error");
  });
});
