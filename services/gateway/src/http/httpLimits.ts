import { randomUUID } from "node:crypto";
import { STATUS_CODES, createServer, type RequestListener, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Request } from "express";
import { DomainError, type Logger } from "@argus/platform";
import { PROBLEM_CONTENT_TYPE, problemBody } from "./problem.ts";

/**
 * Largest request target the gateway reads (bytes; Node's parser admits only ASCII there). Every
 * request the document admits fits with room to spare: a cursor is at most 2 KiB, and a name
 * filter of 255 characters stays under 3 KiB even when every character is percent-encoded.
 */
export const MAX_URI_BYTES = 16 * 1024;

/** Largest request line plus headers Node's HTTP parser reads; past it `answerClientError` answers. */
export const MAX_HEADER_BYTES = 64 * 1024;

/** 414 for a target longer than MAX_URI_BYTES, before any route looks at it. */
export function refuseLongUri(req: Request): void {
  if (req.originalUrl.length > MAX_URI_BYTES)
    throw new DomainError("uri-too-long", `the request target exceeds ${MAX_URI_BYTES} bytes`);
}

interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

// The path of the refused request, as the Problem's `instance`: printable ASCII up to the query.
const REQUEST_LINE = /^[A-Z]+ (\/[\x21-\x3e\x40-\x7e]{0,256})/;

function classify(err: ClientError): DomainError {
  switch (err.code) {
    // The parser cannot tell a long request line from long headers once they span reads; the
    // target alone past MAX_URI_BYTES but within this limit is `refuseLongUri`'s 414.
    case "HPE_HEADER_OVERFLOW":
      return new DomainError(
        "request-header-fields-too-large",
        `the request line and headers exceed ${MAX_HEADER_BYTES} bytes`,
      );
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new DomainError("request-timeout", "the request did not arrive in time");
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new DomainError("payload-too-large", "chunk extensions are too large");
    default:
      return new DomainError("invalid-request", `malformed HTTP request (${err.message})`);
  }
}

/**
 * The server's `clientError` listener: requests Node's HTTP parser refuses before Express
 * ever sees them (oversized or malformed request line or headers, a bad body framing, a
 * timeout) still get a Problem body whose `status` is the HTTP status, as every error does
 * (ARCHITECTURE §10). The connection is closed afterwards: the parser's state is lost.
 */
function answerClientError(opts: {
  errorsBase: string;
  logger: Logger;
}): (err: ClientError, socket: Duplex) => void {
  return (err, socket) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const instance = REQUEST_LINE.exec(err.rawPacket?.toString("latin1") ?? "")?.[1] ?? "/";
    const error = classify(err);
    const problem = problemBody(error, { errorsBase: opts.errorsBase, instance, requestId });
    const { status } = problem;
    const body = JSON.stringify(problem);
    opts.logger.info("request refused by the HTTP parser", {
      request_id: requestId,
      code: err.code ?? null,
      status,
    });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        "X-Content-Type-Options: nosniff\r\n" +
        "Cache-Control: no-store\r\n" +
        "Connection: close\r\n\r\n" +
        body,
    );
  };
}

/** The gateway's HTTP server: the app behind a parser whose own refusals are Problems too. */
export function createGatewayServer(
  app: RequestListener,
  opts: { errorsBase: string; logger: Logger },
): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
  server.on("clientError", answerClientError(opts));
  return server;
}
