import type { Request, RequestHandler, Response } from "express";
import { authenticate, chargeKey, type Authenticator } from "../auth/authenticate.ts";
import type { ValidatedHandler } from "./handler.ts";
import type { CompiledOperation } from "../openapi/operations.ts";
import { readPaging } from "./paging.ts";
import type { RateLimiter } from "./rateLimit.ts";
import { requestContext, setRoute } from "./requestContext.ts";
import { respond } from "./respond.ts";
import { storableRequest } from "./storableText.ts";

export interface PipelineDeps {
  authenticator: Authenticator;
  limiter: RateLimiter;
  /** Failed authentications per client address (authenticate.ts). */
  failureLimiter: RateLimiter;
  readBody: (req: Request, res: Response) => Promise<unknown>;
  cursorSecret: string;
}

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
    // no cache, shared or private, may keep any of them.
    res.set("Cache-Control", "no-store");

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

    const paging = readPaging(op, input, deps.cursorSecret);

    const out = await handler({
      principal,
      body: input.body,
      query: paging.query,
      params: input.params,
      requestId: ctx.requestId,
      clientIp: ctx.clientIp,
      page: paging.page,
      logger: ctx.logger,
    });
    respond(res, op, out, paging.signNext);
  };
}
