import { inject } from "vitest";
import type { Infra } from "./infra.ts";

/** The Infra that the integration/e2e globalSetup started, inside a vitest test file. */
export function testInfra(): Infra {
  let infra: Infra | undefined;
  try {
    infra = inject("argusInfra");
  } catch (err) {
    throw new Error("testInfra() only works inside a vitest test file", { cause: err });
  }
  if (infra === undefined) {
    throw new Error(
      "No argusInfra provided: run this file in the `integration` or `e2e` vitest project, " +
        "whose globalSetup is packages/testkit/src/globalSetup.ts",
    );
  }
  return infra;
}
