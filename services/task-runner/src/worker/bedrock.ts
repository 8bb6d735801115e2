import { Sha256 } from "@aws-crypto/sha256-js";
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { SignatureV4 } from "@smithy/signature-v4";
import type { AwsCredentialIdentity, HttpRequest } from "@smithy/types";
import type { OutboundPolicy } from "@argus/platform";
import type { ResolvedIntegration } from "@argus/proto/catalog/v1/ai_integrations";
import { ItemError } from "./managedEvaluators.ts";
import {
  cloudRequest,
  guardedFetch,
  integrationNamed,
  retried,
  USER_AGENT,
  type Chat,
  type ChatMessage,
} from "./providerHttp.ts";

/** Where the deployment's own AWS identity is used from (role assumption). */
export interface AwsOptions {
  /** The region Bedrock is called in when the integration names none. */
  region: string;
  /** An STS endpoint other than AWS's (tests, a VPC endpoint); empty for the default. */
  stsEndpoint: string;
}

/** Temporary credentials are renewed this long before they expire. */
const RENEW_MS = 5 * 60_000;
const SESSION = "argus-task-runner";

type Credentials = AwsCredentialIdentity & { expiration?: Date };

/**
 * Credentials of the integration's role, assumed with the deployment's own AWS identity (the
 * SDK's default chain: environment, web identity, instance profile), with the integration's
 * external id; kept until shortly before they expire.
 */
function assumedRole(roleArn: string, externalId: string | undefined, aws: AwsOptions) {
  const sts = new STSClient({
    region: aws.region,
    ...(aws.stsEndpoint ? { endpoint: aws.stsEndpoint } : {}),
  });
  let held: Promise<Credentials> | undefined;
  const assume = async (): Promise<Credentials> => {
    const res = await sts.send(
      new AssumeRoleCommand({
        RoleArn: roleArn,
        RoleSessionName: SESSION,
        ...(externalId ? { ExternalId: externalId } : {}),
      }),
    );
    const c = res.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error("STS gave no credentials");
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      ...(c.SessionToken ? { sessionToken: c.SessionToken } : {}),
      ...(c.Expiration ? { expiration: c.Expiration } : {}),
    };
  };
  return async (): Promise<Credentials> => {
    const current = await held?.catch(() => undefined);
    if (current && (!current.expiration || current.expiration.getTime() - Date.now() > RENEW_MS))
      return current;
    held = assume();
    return held;
  };
}

/** The Converse API's request body: system prompts apart, turns as text blocks. */
function converseBody(messages: ChatMessage[], parameters: Record<string, unknown>) {
  const { system, turns, inference } = cloudRequest(messages, parameters, "maxTokens");
  return {
    messages: turns.map((m) => ({ role: m.role, content: [{ text: m.content }] })),
    ...(system.length > 0 ? { system } : {}),
    ...(inference ? { inferenceConfig: inference } : {}),
  };
}

/**
 * AWS_BEDROCK through the Converse API (`POST /model/{model}/converse`) of the integration's
 * `base_url`, else `bedrock-runtime.<region>.amazonaws.com`, by its auth type: DEFAULT assumes
 * `provider_metadata.role_arn` (with its `external_id`) and signs with SigV4; BEARER_TOKEN
 * sends the integration's key as a bearer token (a Bedrock API key); PROXY_WITH_HEADERS sends
 * the integration's headers to its proxy. 429, 5xx and no answer are retried 3 times
 * (honouring Retry-After); every call goes through the outbound guard.
 */
export function bedrockChat(
  integration: ResolvedIntegration,
  policy: OutboundPolicy,
  timeoutMs: number,
  aws: AwsOptions,
  stopped?: AbortSignal,
): Chat {
  const metadata = integration.providerMetadataJson
    ? (JSON.parse(integration.providerMetadataJson) as Record<string, unknown>)
    : {};
  const headers = integration.headersJson
    ? (JSON.parse(integration.headersJson) as Record<string, string>)
    : {};
  const region = typeof metadata.region === "string" ? metadata.region : aws.region;
  const base = (integration.baseUrl ?? `https://bedrock-runtime.${region}.amazonaws.com`).replace(
    /\/+$/,
    "",
  );
  const auth = integration.authType;
  if (auth === "PROXY_WITH_HEADERS" && !integration.baseUrl)
    throw new ItemError(`${integrationNamed(integration)} (AWS_BEDROCK proxy) has no base_url`);
  if (auth === "BEARER_TOKEN" && !integration.apiKey)
    throw new ItemError(`${integrationNamed(integration)} (AWS_BEDROCK) has no bearer token`);
  const roleArn = typeof metadata.role_arn === "string" ? metadata.role_arn : "";
  if (auth === "DEFAULT" && !roleArn)
    throw new ItemError(`${integrationNamed(integration)} (AWS_BEDROCK) has no role_arn`);
  const credentials =
    auth === "DEFAULT"
      ? assumedRole(
          roleArn,
          typeof metadata.external_id === "string" ? metadata.external_id : undefined,
          aws,
        )
      : undefined;
  const send = guardedFetch(policy, timeoutMs, stopped);

  /** The request's headers: signed (DEFAULT), with the bearer token, or the proxy's. */
  async function authorized(url: URL, body: string): Promise<Record<string, string>> {
    const plain = {
      "user-agent": USER_AGENT,
      ...headers,
      "content-type": "application/json",
      accept: "application/json",
    };
    if (auth === "BEARER_TOKEN") return { ...plain, authorization: `Bearer ${integration.apiKey}` };
    if (!credentials) return plain;
    const signer = new SignatureV4({
      credentials: await credentials(),
      region,
      service: "bedrock",
      sha256: Sha256,
    });
    const request: HttpRequest = {
      method: "POST",
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: { ...plain, host: url.host },
      body,
    };
    return (await signer.sign(request)).headers;
  }

  return async ({ model, messages, parameters }) => {
    const url = new URL(`${base}/model/${encodeURIComponent(model)}/converse`);
    const body = JSON.stringify(converseBody(messages, parameters));
    const res = await retried(
      "Bedrock",
      async () => send(url.href, { method: "POST", headers: await authorized(url, body), body }),
      stopped,
    );
    const answer = (await res.json()) as {
      output?: { message?: { content?: { text?: string }[] } };
    };
    const text = (answer.output?.message?.content ?? []).flatMap((b) =>
      typeof b.text === "string" ? [b.text] : [],
    );
    return text.length > 0 ? text.join("") : undefined;
  };
}
