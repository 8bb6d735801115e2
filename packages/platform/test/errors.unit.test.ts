import { Metadata, status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import {
  DomainError,
  PROBLEM_TYPES,
  asDomainError,
  fromGrpcError,
  isDependencyUnavailable,
  retryAfterOf,
  toGrpcError,
} from "../src/errors.ts";

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

  it("a dependency's loss caught beside a peer's call stays a 503, not a bare internal error", () => {
    const lost = Object.assign(new Error("terminating connection due to administrator command"), {
      code: "57P01",
    });
    expect(fromGrpcError(lost).type).toBe("service-unavailable");
    expect(
      fromGrpcError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })).type,
    ).toBe("service-unavailable");
    const bare = fromGrpcError({ code: status.INTERNAL, details: "Received RST_STREAM" });
    expect([bare.type, bare.message]).toEqual(["internal-error", "internal error"]);
    expect(bare.cause).toEqual({ code: status.INTERNAL, details: "Received RST_STREAM" });
  });
});

describe("a dependency's loss", () => {
  const pgError = (code: string, message = code) => Object.assign(new Error(message), { code });
  const named = (name: string, message = name) => Object.assign(new Error(message), { name });

  it("is told from the caller's and the code's errors", () => {
    const unavailable = [
      pgError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
      pgError("ECONNRESET"),
      pgError("57P01", "terminating connection due to administrator command"),
      pgError("57P02", "terminating connection because of crash of another server process"),
      pgError("57P03", "the database system is starting up"),
      pgError("08006", "connection failure"),
      pgError("53300", "sorry, too many clients already"),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
      new Error("Client has encountered a connection error and is not queryable"),
      named("ClosedConnectionError", "closed connection"),
      named("NoResponders", "no responders"),
      named("ConnectionError", "connection refused"),
      new Error("wrapped", { cause: pgError("57P01") }),
    ];
    for (const err of unavailable) expect(isDependencyUnavailable(err), err.message).toBe(true);
    const notUnavailable = [
      pgError("23505", "duplicate key value violates unique constraint"),
      pgError("40001", "could not serialize access"),
      pgError("28P01", "password authentication failed"),
      pgError("42P01", "relation does not exist"),
      new TypeError("cannot read properties of undefined"),
      named("TimeoutError", "The operation was aborted due to timeout"),
    ];
    for (const err of notUnavailable) expect(isDependencyUnavailable(err), err.message).toBe(false);
  });

  it("crosses gRPC as UNAVAILABLE with the service-unavailable trailer, and back as a 503 with Retry-After", () => {
    const wire = toGrpcError(new Error("Connection terminated unexpectedly"));
    expect(wire.code).toBe(status.UNAVAILABLE);
    expect(wire.details).toBe("a dependency of the service is unavailable; retry later");
    const back = fromGrpcError(wire);
    expect(back.type).toBe("service-unavailable");
    expect(PROBLEM_TYPES[back.type].status).toBe(503);
    expect(retryAfterOf(back.type)).toBe(5);
    expect(retryAfterOf("internal-error")).toBeUndefined();
  });

  it("keeps a DomainError as it is, and anything else internal", () => {
    const domain = new DomainError("resource-not-found", "tag not found");
    expect(asDomainError(domain)).toBe(domain);
    expect(asDomainError(pgError("ECONNREFUSED"))?.type).toBe("service-unavailable");
    expect(asDomainError(new Error("a bug"))).toBeUndefined();
  });
});
