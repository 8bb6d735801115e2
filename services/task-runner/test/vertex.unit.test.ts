import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolvedIntegration } from "@argus/proto/catalog/v1/ai_integrations";
import { listenLocal } from "@argus/testkit";
import { vertexChat } from "../src/worker/vertex.ts";

/**
 * VERTEX_AI against loopback fakes of the edge Argus does not own: Vertex AI's generateContent
 * and the metadata server the deployment's Google identity (Application Default Credentials)
 * takes its access token from, as on GKE or GCE.
 */
const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
let tokens = 0;
let failNext = 0;
let vertex: Server;
let metadata: Server;
let vertexUrl: string;

const listen = async (s: Server) => {
  return `127.0.0.1:${await listenLocal(s)}`;
};

beforeAll(async () => {
  vertex = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      if (failNext > 0) {
        failNext--;
        return void res.writeHead(503).end("busy");
      }
      const parsed = JSON.parse(body) as { contents: { parts: { text: string }[] }[] };
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          candidates: [
            {
              content: {
                role: "model",
                parts: [{ text: `echo: ${parsed.contents.at(-1)!.parts[0]!.text}` }],
              },
            },
          ],
        }),
      );
    });
  });
  metadata = createServer((req, res) => {
    const headers = { "metadata-flavor": "Google", "content-type": "application/json" };
    if (req.url?.includes("/service-accounts/default/token")) {
      tokens++;
      return void res.writeHead(200, headers).end(
        JSON.stringify({
          access_token: "ya29.deployment",
          expires_in: 3600,
          token_type: "Bearer",
        }),
      );
    }
    res.writeHead(200, { ...headers, "content-type": "text/plain" }).end("argus-project");
  });
  vertexUrl = `http://${await listen(vertex)}`;
  process.env.GCE_METADATA_HOST = await listen(metadata);
  process.env.METADATA_SERVER_DETECTION = "assume-present";
  delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
});
afterAll(async () => {
  await new Promise((r) => vertex?.close(r));
  await new Promise((r) => metadata?.close(r));
});

const integration = (meta: Record<string, unknown>): ResolvedIntegration => ({
  id: "v1",
  provider: "VERTEX_AI",
  authType: "DEFAULT",
  providerMetadataJson: JSON.stringify(meta),
  modelNames: [],
});
const policy = { allowLoopback: true, allowPrivate: false };

describe("VERTEX_AI through generateContent", () => {
  it("calls the project's model as the deployment's identity; a 503 is tried again", async () => {
    failNext = 1;
    const chat = vertexChat(
      integration({
        kind: "GCP",
        project_id: "customer-proj",
        location: "us-central1",
        project_access_label: "l",
      }),
      policy,
      5000,
      { endpoint: vertexUrl },
    );
    const answer = await chat({
      model: "gemini-2.0-flash",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        { role: "user", content: "again" },
      ],
      parameters: { max_tokens: 20, temperature: 0.5 },
    });
    expect(answer).toBe("echo: again");
    expect(seen).toHaveLength(2);
    const call = seen[1]!;
    expect(call.url).toBe(
      "/v1/projects/customer-proj/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent",
    );
    expect(call.headers.authorization).toBe("Bearer ya29.deployment");
    expect(JSON.parse(call.body)).toEqual({
      contents: [
        { role: "user", parts: [{ text: "hi" }] },
        { role: "model", parts: [{ text: "hello" }] },
        { role: "user", parts: [{ text: "again" }] },
      ],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: { maxOutputTokens: 20, temperature: 0.5 },
    });
    // The token is the library's to keep: one for both attempts.
    expect(tokens).toBe(1);
  });

  it("needs the project and location; the outbound guard holds", async () => {
    expect(() => vertexChat(integration({ project_id: "p" }), policy, 1, { endpoint: "" })).toThrow(
      /no project_id and location/,
    );
    const guarded = vertexChat(
      integration({ project_id: "p", location: "us-central1" }),
      { allowLoopback: false, allowPrivate: false },
      5000,
      { endpoint: vertexUrl },
    );
    await expect(
      guarded({ model: "m", messages: [{ role: "user", content: "x" }], parameters: {} }),
    ).rejects.toThrow(/loopback/);
  });
});
