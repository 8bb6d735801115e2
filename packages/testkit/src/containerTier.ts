import { get } from "node:http";
import { inject } from "vitest";
import type { ContainerTier } from "./containerGlobalSetup.ts";
import type { ContainerStack } from "./containerStack.ts";

/** Where the `containers` project's globalSetup serves its stack, or why there is none. */
export function containerTier(): ContainerTier {
  let tier: ContainerTier | undefined;
  try {
    tier = inject("argusContainers");
  } catch (err) {
    throw new Error("containerTier() only works inside a vitest test file", { cause: err });
  }
  if (tier === undefined)
    throw new Error(
      "No argusContainers provided: run this file in the `containers` vitest project, " +
        "whose globalSetup is packages/testkit/src/containerGlobalSetup.ts",
    );
  return tier;
}

/**
 * The tier's stack, started by the first file that asks (the others wait for the same one).
 * node:http rather than fetch: a start may take minutes, past fetch's header timeout.
 */
export function containerStack(control: string): Promise<ContainerStack> {
  return new Promise((resolve, reject) => {
    get(control, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        if (res.statusCode === 200) resolve(JSON.parse(body) as ContainerStack);
        else reject(new Error(`the container stack did not start:\n${body}`));
      });
    }).on("error", reject);
  });
}
