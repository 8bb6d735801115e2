import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { listenLocal } from "@argus/testkit";

/** How the fake answers one request: a status (with Retry-After), text that is no label, a delay. */
type LlmReply =
  { status: number; retryAfterS?: number } | { malformed: true } | { delayMs: number } | "hang";

export interface FakeLlm {
  /** The OpenAI-compatible base URL (`…/v1`). */
  baseUrl: string;
  /** The server's root: an Azure OpenAI endpoint, an Anthropic base URL. */
  root: string;
  requests: {
    /** Path and query as sent. */
    url: string;
    headers: IncomingHttpHeaders;
    body: {
      model: string;
      messages: { role: string; content: string }[];
      system?: string;
      max_tokens?: number;
    };
  }[];
  /** The replies to the next requests, in order; then every request is answered normally. */
  script(replies: LlmReply[]): void;
  close(): Promise<void>;
}

/**
 * A model provider on loopback, written for the tests (the edge we do not own): the OpenAI chat
 * completions API (`/v1/chat/completions`, and Azure OpenAI's
 * `/openai/deployments/<deployment>/chat/completions`), Anthropic's Messages API
 * (`/v1/messages`), AWS Bedrock's Converse API (`/model/<model>/converse`), Vertex AI's
 * generateContent (`…/models/<model>:generateContent`), and the Google metadata server's access
 * token (`/computeMetadata/…`, not recorded). It answers "LABEL: relevant" when the prompt contains "OK", else "LABEL:
 * irrelevant", each with an explanation; it can be scripted to be slow, to fail, to rate-limit
 * (429 with Retry-After) or to answer without a label.
 */
export async function startFakeLlm(): Promise<FakeLlm> {
  let replies: LlmReply[] = [];
  const hung: ServerResponse[] = [];
  const requests: FakeLlm["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    const answer = async (): Promise<void> => {
      const body = JSON.parse(
        Buffer.concat(chunks).toString() || "{}",
      ) as FakeLlm["requests"][number]["body"];
      requests.push({ url: req.url ?? "", headers: req.headers, body });
      const reply = replies.shift();
      if (reply === "hang") return void hung.push(res);
      if (reply && "delayMs" in reply) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply && "status" in reply) {
        res.writeHead(reply.status, {
          "content-type": "application/json",
          ...(reply.retryAfterS === undefined ? {} : { "retry-after": String(reply.retryAfterS) }),
        });
        return void res.end(
          JSON.stringify({ error: { message: `status ${reply.status}`, type: "test" } }),
        );
      }
      // The metadata server a deployment on Google Cloud takes its access token from.
      if (req.url?.startsWith("/computeMetadata/")) {
        requests.pop();
        const token = req.url.includes("/service-accounts/default/token");
        res.writeHead(200, {
          "metadata-flavor": "Google",
          "content-type": token ? "application/json" : "text/plain",
        });
        return void res.end(
          token
            ? JSON.stringify({ access_token: "ya29.fake", expires_in: 3600, token_type: "Bearer" })
            : "fake-project",
        );
      }
      const raw = body as unknown as {
        messages?: { role: string; content: string | { text: string }[] }[];
        contents?: { role: string; parts: { text: string }[] }[];
      };
      const converse = /^\/model\/[^/]+\/converse$/.test(req.url ?? "");
      const vertex = req.url?.includes(":generateContent") ?? false;
      const userTurn = raw.messages?.find((m) => m.role === "user")?.content;
      const prompt = vertex
        ? (raw.contents?.find((c) => c.role === "user")?.parts[0]?.text ?? "")
        : Array.isArray(userTurn)
          ? (userTurn[0]?.text ?? "")
          : (userTurn ?? "");
      const content =
        reply && "malformed" in reply
          ? "I would rather talk about bananas."
          : `EXPLANATION: the answer ${prompt.includes("OK") ? "fits" : "does not fit"}.\nLABEL: ${prompt.includes("OK") ? "relevant" : "irrelevant"}`;
      res.writeHead(200, { "content-type": "application/json" });
      if (converse)
        return void res.end(
          JSON.stringify({
            output: { message: { role: "assistant", content: [{ text: content }] } },
            stopReason: "end_turn",
            usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
          }),
        );
      if (vertex)
        return void res.end(
          JSON.stringify({
            candidates: [{ content: { role: "model", parts: [{ text: content }] } }],
          }),
        );
      if (req.url?.startsWith("/v1/messages"))
        return void res.end(
          JSON.stringify({
            id: "msg_test",
            type: "message",
            role: "assistant",
            model: body.model,
            content: [{ type: "text", text: content }],
            stop_reason: "end_turn",
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 5 },
          }),
        );
      res.end(
        JSON.stringify({
          id: "chatcmpl-test",
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    };
    // A request the fake cannot read ends its connection, not the test process.
    req.on("end", () => {
      answer().catch((err: unknown) => res.destroy(err as Error));
    });
  });
  const root = `http://127.0.0.1:${await listenLocal(server)}`;
  return {
    baseUrl: `${root}/v1`,
    root,
    requests,
    script(next) {
      replies = [...next];
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
