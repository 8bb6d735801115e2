import { GoogleAuth } from "google-auth-library";
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

/** Where Vertex AI is reached from (tests and private endpoints name another base). */
export interface GcpOptions {
  /** A base URL other than `https://<location>-aiplatform.googleapis.com`; empty for Google's. */
  endpoint: string;
}

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** The deployment's Google identity (Application Default Credentials), made once. */
let adc: GoogleAuth | undefined;
const identity = () => (adc ??= new GoogleAuth({ scopes: [SCOPE] }));

/** generateContent's body: the system prompt apart, turns as user/model contents. */
function generateBody(messages: ChatMessage[], parameters: Record<string, unknown>) {
  const { system, turns, inference } = cloudRequest(messages, parameters, "maxOutputTokens");
  return {
    contents: turns.map((m) => ({
      role: m.role === "assistant" ? "model" : "user",
      parts: [{ text: m.content }],
    })),
    ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}),
    ...(inference ? { generationConfig: inference } : {}),
  };
}

/**
 * VERTEX_AI through generateContent of the integration's project and location
 * (`provider_metadata`), as the deployment's own Google identity (Application Default
 * Credentials: a workload identity, the metadata server, GOOGLE_APPLICATION_CREDENTIALS),
 * which the customer grants access to the project (the public API's `project_access_label`
 * names that grant; Argus stores it). Retried and guarded as every provider call.
 */
export function vertexChat(
  integration: ResolvedIntegration,
  policy: OutboundPolicy,
  timeoutMs: number,
  gcp: GcpOptions,
  stopped?: AbortSignal,
): Chat {
  const m = integration.providerMetadataJson
    ? (JSON.parse(integration.providerMetadataJson) as Record<string, unknown>)
    : {};
  const project = typeof m.project_id === "string" ? m.project_id : "";
  const location = typeof m.location === "string" ? m.location : "";
  if (!project || !location)
    throw new ItemError(
      `${integrationNamed(integration)} (VERTEX_AI) has no project_id and location`,
    );
  const host =
    location === "global"
      ? "https://aiplatform.googleapis.com"
      : `https://${location}-aiplatform.googleapis.com`;
  const base = (gcp.endpoint || host).replace(/\/+$/, "");
  const send = guardedFetch(policy, timeoutMs, stopped);
  return async ({ model, messages, parameters }) => {
    const path = `/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/publishers/google/models/${encodeURIComponent(model)}:generateContent`;
    const body = JSON.stringify(generateBody(messages, parameters));
    const res = await retried(
      "Vertex AI",
      async () => {
        const token = await identity().getAccessToken();
        if (!token) throw new Error("no Google access token for the deployment");
        return send(base + path, {
          method: "POST",
          headers: {
            "user-agent": USER_AGENT,
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
          },
          body,
        });
      },
      stopped,
    );
    const answer = (await res.json()) as {
      candidates?: { content?: { parts?: { text?: string }[] } }[];
    };
    const text = (answer.candidates?.[0]?.content?.parts ?? []).flatMap((p) =>
      typeof p.text === "string" ? [p.text] : [],
    );
    return text.length > 0 ? text.join("") : undefined;
  };
}
