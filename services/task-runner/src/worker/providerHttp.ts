import { setTimeout } from "node:timers/promises";
import { encodeId, sendOutbound, type OutboundPolicy } from "@argus/platform";

/*
 * What every outbound call of the worker shares: the model clients of llm.ts, bedrock.ts and
 * vertex.ts, and the REMOTE and AGENT endpoints of endpoints.ts.
 */

/** How the task runner names itself to the endpoints and providers it calls itself. */
export const USER_AGENT = "Argus-Tasks/1";

/** An AI integration as a run's failure reason names it: by its public id, as the API does. */
export const integrationNamed = (integration: { id: string }): string =>
  `AI integration ${encodeId("AiIntegration", integration.id)}`;

/**
 * fetch for the provider's client through the one outbound guard (packages/platform
 * outbound.ts): the base URL is a customer's, so the address dialled is checked like a
 * webhook's; no redirect is followed; the client's own retries (429 honouring Retry-After,
 * 5xx, timeouts) stay the client's. `stopped` is the run's: once it aborts (a cancel, a
 * deletion) no call starts and the calls out are torn down, as when the client aborts its own.
 */
export function guardedFetch(policy: OutboundPolicy, timeoutMs: number, stopped?: AbortSignal) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    const signals = [stopped, init?.signal ?? undefined].filter((s) => s !== undefined);
    const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
    const result = await sendOutbound({
      url,
      headers,
      body: typeof init?.body === "string" ? init.body : "",
      timeoutMs,
      policy,
      maxResponseBytes: 4 * 1024 * 1024,
      signal,
    });
    // Aborted as fetch is: the clients know this error and do not try again.
    signal?.throwIfAborted();
    // A refused destination is answered here as a 403 (what the SDKs and `retried` do not
    // retry): it was never contacted, and asking again would be refused again.
    if (result.refused)
      return new Response(
        JSON.stringify({ error: { message: `destination refused: ${result.error}` } }),
        { status: 403, headers: { "content-type": "application/json" } },
      );
    if (result.statusCode === undefined) throw new TypeError(result.error ?? "no response");
    const answerHeaders: Record<string, string> = { "content-type": "application/json" };
    if (result.retryAfterMs !== undefined)
      answerHeaders["retry-after-ms"] = String(result.retryAfterMs);
    return new Response(result.responseBody, { status: result.statusCode, headers: answerHeaders });
  };
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * The invocation parameters a cloud provider's API names its own way (`max_tokens` is Bedrock's
 * `maxTokens`, Vertex's `maxOutputTokens`), those not given left out; and the system prompts
 * apart from the turns, as both APIs take them.
 */
export function cloudRequest(
  messages: ChatMessage[],
  p: Record<string, unknown>,
  maxTokens: "maxTokens" | "maxOutputTokens",
) {
  const inference = Object.fromEntries(
    Object.entries({
      [maxTokens]: p.max_tokens ?? p[maxTokens],
      temperature: p.temperature,
      topP: p.top_p ?? p.topP,
      stopSequences: p.stop ?? p.stopSequences,
    }).filter(([, v]) => v !== undefined),
  );
  return {
    system: messages.filter((m) => m.role === "system").map((m) => ({ text: m.content })),
    turns: messages.filter((m) => m.role !== "system"),
    inference: Object.keys(inference).length > 0 ? inference : undefined,
  };
}

const ATTEMPTS = 4;

/**
 * A provider call made again on 429, 5xx or no answer (3 more times, honouring Retry-After,
 * else backing off); answers the 2xx, else throws what the provider last said. Once `stopped`
 * aborts, no attempt starts and the wait for the next ends.
 */
export async function retried(
  provider: string,
  call: () => Promise<Response>,
  stopped?: AbortSignal,
): Promise<Response> {
  let last = "";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    stopped?.throwIfAborted();
    let res: Response | undefined;
    try {
      res = await call();
    } catch (err) {
      last = (err as Error).message;
    }
    if (res?.ok) return res;
    if (res) last = `${provider} answered ${res.status}: ${(await res.text()).slice(0, 200)}`;
    if (res && res.status !== 429 && res.status < 500) break;
    if (attempt < ATTEMPTS - 1) {
      const after = Number(res?.headers.get("retry-after-ms") ?? NaN);
      const ms = Number.isFinite(after) ? Math.min(after, 10_000) : 250 * 2 ** attempt;
      await setTimeout(ms, undefined, { signal: stopped }).catch(() => undefined);
    }
  }
  throw new Error(last);
}

/** One model call: messages in, the model's text out. */
export type Chat = (request: {
  model: string;
  messages: ChatMessage[];
  parameters: Record<string, unknown>;
}) => Promise<string | undefined>;
