import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolvedIntegration } from "@argus/proto/catalog/v1/ai_integrations";
import { listenLocal } from "@argus/testkit";
import { bedrockChat } from "../src/worker/bedrock.ts";

/**
 * AWS_BEDROCK against loopback fakes of the edge Argus does not own: Bedrock's Converse API and
 * STS's AssumeRole (the role a DEFAULT integration names, assumed with the deployment's own
 * credentials, here from the environment).
 */
interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const seen: Seen[] = [];
const stsCalls: string[] = [];
let throttleNext = 0;
let bedrock: Server;
let sts: Server;
let bedrockUrl: string;
let stsUrl: string;

const listen = async (s: Server) => {
  return `http://127.0.0.1:${await listenLocal(s)}`;
};

beforeAll(async () => {
  bedrock = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      if (throttleNext > 0) {
        throttleNext--;
        return void res.writeHead(429, { "retry-after": "0" }).end("{}");
      }
      const last = (
        JSON.parse(body) as { messages: { content: { text: string }[] }[] }
      ).messages.at(-1)!.content[0]!.text;
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          output: { message: { role: "assistant", content: [{ text: `echo: ${last}` }] } },
          stopReason: "end_turn",
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        }),
      );
    });
  });
  sts = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      stsCalls.push(`${req.headers.authorization?.split(",")[0]} ${body}`);
      res
        .writeHead(200, { "content-type": "text/xml" })
        .end(
          `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>ASIATEMPORARY</AccessKeyId><SecretAccessKey>temporary-secret</SecretAccessKey><SessionToken>session-token</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials><AssumedRoleUser><Arn>a</Arn><AssumedRoleId>i</AssumedRoleId></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>`,
        );
    });
  });
  bedrockUrl = await listen(bedrock);
  stsUrl = await listen(sts);
  // The deployment's own identity, as the SDK's default chain reads it.
  process.env.AWS_ACCESS_KEY_ID = "AKIDDEPLOYMENT";
  process.env.AWS_SECRET_ACCESS_KEY = "deployment-secret";
});
afterAll(async () => {
  await new Promise((r) => bedrock?.close(r));
  await new Promise((r) => sts?.close(r));
});

const policy = { allowLoopback: true, allowPrivate: false };
const integration = (over: Partial<ResolvedIntegration>): ResolvedIntegration => ({
  id: "i1",
  provider: "AWS_BEDROCK",
  baseUrl: bedrockUrl,
  authType: "DEFAULT",
  modelNames: [],
  ...over,
});
const request = {
  model: "anthropic.claude-3-haiku",
  messages: [
    { role: "system" as const, content: "Be brief." },
    { role: "user" as const, content: "hello" },
  ],
  parameters: { max_tokens: 50, temperature: 0 },
};

describe("AWS_BEDROCK through the Converse API", () => {
  it("DEFAULT assumes the role with the deployment's identity and signs with its credentials", async () => {
    seen.length = 0;
    const chat = bedrockChat(
      integration({
        providerMetadataJson: JSON.stringify({
          kind: "AWS",
          role_arn: "arn:aws:iam::123:role/bedrock",
          external_id: "ext-1",
          region: "eu-west-1",
        }),
      }),
      policy,
      5000,
      { region: "us-east-1", stsEndpoint: stsUrl },
    );
    expect(await chat(request)).toBe("echo: hello");
    expect(await chat(request)).toBe("echo: hello");
    // One assumption for both calls, made with the deployment's key, naming role and external id.
    expect(stsCalls).toHaveLength(1);
    expect(stsCalls[0]).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDDEPLOYMENT\//);
    expect(stsCalls[0]).toMatch(/RoleArn=arn%3Aaws%3Aiam%3A%3A123%3Arole%2Fbedrock/);
    expect(stsCalls[0]).toMatch(/ExternalId=ext-1/);
    const call = seen[0]!;
    expect(call.url).toBe("/model/anthropic.claude-3-haiku/converse");
    expect(call.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=ASIATEMPORARY\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=[^,]*host/,
    );
    expect(call.headers["x-amz-security-token"]).toBe("session-token");
    expect(call.headers["x-amz-content-sha256"]).toBe(
      createHash("sha256").update(call.body).digest("hex"),
    );
    expect(JSON.parse(call.body)).toEqual({
      messages: [{ role: "user", content: [{ text: "hello" }] }],
      system: [{ text: "Be brief." }],
      inferenceConfig: { maxTokens: 50, temperature: 0 },
    });
  });

  it("BEARER_TOKEN sends the key as a bearer token; a 429 is waited out", async () => {
    seen.length = 0;
    throttleNext = 1;
    const chat = bedrockChat(
      integration({ authType: "BEARER_TOKEN", apiKey: "bedrock-api-key" }),
      policy,
      5000,
      { region: "us-east-1", stsEndpoint: stsUrl },
    );
    expect(await chat(request)).toBe("echo: hello");
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers.authorization).toBe("Bearer bedrock-api-key");
  });

  it("PROXY_WITH_HEADERS sends the integration's headers, unsigned; a 400 is not retried", async () => {
    seen.length = 0;
    const chat = bedrockChat(
      integration({ authType: "PROXY_WITH_HEADERS", headersJson: '{"x-proxy-key":"p"}' }),
      policy,
      5000,
      { region: "us-east-1", stsEndpoint: stsUrl },
    );
    expect(await chat(request)).toBe("echo: hello");
    expect(seen[0]!.headers["x-proxy-key"]).toBe("p");
    expect(seen[0]!.headers.authorization).toBeUndefined();
    // Without a base URL there is no proxy to call; without a role, nothing to assume.
    expect(() =>
      bedrockChat(integration({ authType: "PROXY_WITH_HEADERS", baseUrl: undefined }), policy, 1, {
        region: "us-east-1",
        stsEndpoint: "",
      }),
    ).toThrow(/no base_url/);
    expect(() =>
      bedrockChat(integration({ authType: "DEFAULT" }), policy, 1, {
        region: "us-east-1",
        stsEndpoint: "",
      }),
    ).toThrow(/no role_arn/);
  });

  it("the outbound guard: loopback is refused unless allowed", async () => {
    const chat = bedrockChat(
      integration({ authType: "BEARER_TOKEN", apiKey: "k" }),
      { allowLoopback: false, allowPrivate: false },
      5000,
      { region: "us-east-1", stsEndpoint: stsUrl },
    );
    // Refused before any connection, and not asked again (a refusal is a 403, not retried).
    await expect(chat(request)).rejects.toThrow(/answered 403: .*destination refused: .*loopback/);
  });
});
