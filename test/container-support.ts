import { describe, it } from "vitest";
import { containerTier, type ContainerStack } from "@argus/testkit";

/**
 * A suite of the `containers` tier, on the stack its globalSetup started; without a container
 * engine (or the images) the suite is one skipped test that says why.
 */
export function describeContainers(title: string, body: (stack: ContainerStack) => void): void {
  const tier = containerTier();
  if ("skipped" in tier) {
    it.skip(`${title} (skipped: ${tier.skipped})`, () => undefined);
    return;
  }
  describe(title, () => body(tier.stack));
}

/** Polls `check` until it holds; fails with `what` after `ms`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
