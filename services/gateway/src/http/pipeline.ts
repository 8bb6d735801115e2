import type { Request, RequestHandler, Response } from "express";
import { DomainError, PROBLEM_TYPES, idempotencyScope, type Logger } from "@argus/platform";
import { authenticate, chargeKey, type Authenticator } from "../auth/authenticate.ts";
import type { ValidatedHandler, ValidatedRequest } from "./handler.ts";
import {
  keepsAnswer,
  requestFingerprint,
  type Completion,
  type IdempotencyKeys,
  type KeyedRequest,
} from "./idempotentRequests.ts";
import { IDEMPOTENCY_KEY_HEADER, type CompiledOperation } from "../openapi/operations.ts";
import { readPaging } from "./paging.ts";
import { GatewayError, PROBLEM_CONTENT_TYPE, problemBody, toDomainError } from "./problem.ts";
import type { RateLimiter } from "./rateLimit.ts";
import { requestContext, setRoute, type RequestContext } from "./requestContext.ts";
import { render, send, type Answer } from "./respond.ts";
import { storableRequest } from "./storableText.ts";

export interface PipelineDeps {
  authenticator: Authenticator;
  limiter: RateLimiter;
  /** Failed authentications per client address (authenticate.ts). */
  failureLimiter: RateLimiter;
  readBody: (req: Request, res: Response) => Promise<unknown>;
  cursorSecret: string;
  /** Problem `type` base, for the answers kept for replays. */
  errorsBase: string;
  /** Where answers to requests with an Idempotency-Key are kept; absent: keys are ignored. */
  idempotency?: { keys: IdempotencyKeys; leaseMs: number } | undefined;
}

/** Set on an answer replayed for a request with an Idempotency-Key it was first given to. */
const REPLAYED_HEADER = "Idempotent-Replayed";

/** The request path of one operation, in the order the gateway guarantees. */
export function operationRoute(
  op: CompiledOperation,
  handler: ValidatedHandler,
  deps: PipelineDeps,
): RequestHandler {
  return async (req, res) => {
    const ctx = requestContext(req);
    setRoute(ctx, op.path);
    // Answers are per caller and some carry secrets shown once (a new or refreshed API key):
    // no cache, shared or private, may keep any of them (answerHeaders.ts).
    ctx.noStore = true;

    const body = op.hasBody ? await deps.readBody(req, res) : undefined;

    // Text the store cannot hold is refused here, for every operation, before anything else
    // reads it: the query (decoded strictly), path parameters, the bearer key, the body.
    const text = storableRequest(req, { authorization: req.get("authorization") }, body);

    const principal = await authenticate(
      req,
      { authenticator: deps.authenticator, failures: deps.failureLimiter },
      ctx,
    );

    chargeKey(deps.limiter, principal);

    const input = op.validate({ params: text.params, query: text.query, body: text.body });
    const key = deps.idempotency && op.idempotencyKey(req.get(IDEMPOTENCY_KEY_HEADER));

    const paging = readPaging(op, input, deps.cursorSecret);

    const request: ValidatedRequest = {
      principal,
      body: input.body,
      query: paging.query,
      params: input.params,
      requestId: ctx.requestId,
      clientIp: ctx.clientIp,
      page: paging.page,
      logger: ctx.logger,
    };
    if (key === undefined || !deps.idempotency) {
      send(res, ctx, render(op, await handler(request), paging.signNext));
      return;
    }
    const keyed: KeyedRequest = {
      scope: idempotencyScope(principal),
      key,
      fingerprint: requestFingerprint({
        method: op.method,
        route: op.path,
        params: input.params,
        query: input.query,
        body: input.body,
      }),
    };
    const answer = await once(keyed, deps.idempotency, ctx, deps.errorsBase, async () =>
      render(op, await handler({ ...request, forwardedKey: keyed }), paging.signNext),
    );
    if (answer.replayed) res.set(REPLAYED_HEADER, "true");
    send(res, ctx, answer);
  };
}

/** When to send a request again whose key is still held by an attempt in flight. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

/**
 * Runs a keyed request at most once per caller's key: a request identity already answered is
 * replayed, one with another fingerprint is 422, one still in flight 409. Otherwise `run`,
 * then keep its answer (or forget the key, for answers a retry should not get) before it is
 * sent, so a retry after the answer always finds it.
 */
async function once(
  keyed: KeyedRequest,
  idempotency: NonNullable<PipelineDeps["idempotency"]>,
  ctx: RequestContext,
  errorsBase: string,
  run: () => Promise<Answer>,
): Promise<Answer & { replayed?: boolean }> {
  const begun = await idempotency.keys.begin(keyed, idempotency.leaseMs, ctx.requestId);
  switch (begun.kind) {
    case "replay":
      return { ...replayed(begun.status, begun.body), replayed: true };
    case "mismatch":
      throw new DomainError(
        "unprocessable-entity",
        `this ${IDEMPOTENCY_KEY_HEADER} was used with a different request (method, path, query or body)`,
      );
    case "in_flight":
      // Unlike other conflicts this one passes: the same request may be sent again soon.
      throw new GatewayError(
        "resource-conflict",
        `a request with this ${IDEMPOTENCY_KEY_HEADER} is still in flight; retry later`,
        { "Retry-After": String(IN_FLIGHT_RETRY_AFTER_SECONDS) },
      );
    case "started":
      break;
  }
  const complete = (completion: Completion) =>
    idempotency.keys
      .complete(keyed, begun.attempt, completion, ctx.requestId)
      .catch((err: Error) => warn(ctx.logger, err));
  let answer: Answer;
  try {
    answer = await run();
  } catch (err) {
    const { error } = toDomainError(err);
    const status = PROBLEM_TYPES[error.type].status;
    const problem = problemBody(error, {
      errorsBase,
      instance: ctx.path,
      requestId: ctx.requestId,
    });
    await complete(
      keepsAnswer(status) ? { status, body: Buffer.from(JSON.stringify(problem)) } : "release",
    );
    throw err;
  }
  await complete(
    keepsAnswer(answer.status)
      ? { status: answer.status, body: Buffer.from(answer.body?.text ?? "") }
      : "release",
  );
  return answer;
}

/** A kept answer as it is sent again: JSON for a success, a Problem for an error. */
function replayed(status: number, body: Buffer): Answer {
  if (body.length === 0) return { status };
  return {
    status,
    body: {
      contentType: status >= 400 ? PROBLEM_CONTENT_TYPE : "application/json; charset=utf-8",
      text: body.toString("utf8"),
    },
  };
}

// The answer still goes out: the key stays in flight until its lease runs out, then a retry
// runs it again and the service that applied it answers for it.
function warn(logger: Logger, err: Error): void {
  logger.warn("keeping the answer of a request with an Idempotency-Key failed", {
    error: err.message,
  });
}
