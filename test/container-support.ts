import { beforeAll, describe, it } from "vitest";
import { containerStack, containerTier, type ContainerStack } from "@argus/testkit";

/** The stack of the `containers` tier, once the suite's first hook has it. */
export interface StackRef {
  readonly stack: ContainerStack;
}

/**
 * A suite of the `containers` tier, on the one stack its globalSetup starts for the tier (the
 * first suite to ask starts it). Without a container engine (or the images) the suite is one
 * skipped test that says why.
 */
export function describeContainers(title: string, body: (ref: StackRef) => void): void {
  const tier = containerTier();
  if ("skipped" in tier) {
    it.skip(`${title} (skipped: ${tier.skipped})`, () => undefined);
    return;
  }
  let stack: ContainerStack | undefined;
  const ref: StackRef = {
    get stack() {
      if (!stack) throw new Error("the container stack is not there yet (use it in hooks/tests)");
      return stack;
    },
  };
  describe(title, () => {
    beforeAll(async () => {
      stack = await containerStack(tier.control);
    }, 600_000);
    body(ref);
  });
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
