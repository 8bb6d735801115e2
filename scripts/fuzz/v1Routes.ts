import { fileURLToPath } from "node:url";

/** The non-/v2 HTTP routes (OTLP/HTTP, the SDK's `/v1/pandas_arrow`), described for the fuzzer. */
export const V1_DOCUMENT = fileURLToPath(
  new URL("../../test/fuzz/v1-routes.openapi.yaml", import.meta.url),
);

/**
 * The run's configuration beside the auth: `arize-space-id` names the fuzzing identity's space
 * half the time, so that bodies are read (and refused, or stored) rather than every request
 * stopping at the header.
 */
export function v1RoutesToml(spaceId: string): string {
  return [
    "[dictionaries.v1_space]",
    `values = ${JSON.stringify([spaceId])}`,
    "",
    ...["POST /v1/pandas_arrow", "POST /v1/traces"].flatMap((label) => [
      "[[operations]]",
      `include-name = ${JSON.stringify(label)}`,
      "[operations.parameters]",
      `"header.arize-space-id" = { dictionary = "v1_space", probability = 0.5 }`,
      "",
    ]),
  ].join("\n");
}
