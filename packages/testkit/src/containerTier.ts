import { inject } from "vitest";
import type { ContainerTier } from "./containerGlobalSetup.ts";

/** The container stack the `containers` project's globalSetup started, or why there is none. */
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
