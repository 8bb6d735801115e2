import type { Request, RequestHandler, Response } from "express";
import { authenticate } from "./authenticate.ts";
import type { Authenticator, Handler } from "./http.ts";
import type { CompiledOperation } from "./openapi/operations.ts";
import { readPaging } from "./paging.ts";
import { GatewayError } from "./problem.ts";
import type { RateLimiter } from "./rateLimit.ts";
import { requestContext, setRoute } from "./requestContext.ts";
import { respond } from "./respond.ts";

export interface PipelineDeps {
  authenticator: Authenticator;
  limiter: RateLimiter;
  readBody: (req: Request, res: Response) => Promise<unknown>;
  cursorSecret: string;
}

/** The request path of one operation, in the order the gateway guarantees. */
export function operationRoute(
  op: CompiledOperation,
  handler: Handler,
  deps: PipelineDeps,
): RequestHandler {
  return async (req, res) => {
    const ctx = requestContext(req);
    setRoute(ctx, req.method, op.path);

    const body = op.hasBody ? await deps.readBody(req, res) : undefined;

    const principal = await authenticate(req, deps.authenticator, ctx);

    const decision = deps.limiter.take(principal.apiKeyId);
    if (!decision.allowed) {
      const retryAfter = String(decision.retryAfterSeconds);
      throw new GatewayError("rate-limit-exceeded", "too many requests for this API key", {
        "Retry-After": retryAfter,
      });
    }

    // Templates have only named segments, so every path parameter is a single string.
    const params = Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, String(v)]));
    const input = op.validate({ params, query: { ...req.query }, body });

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
