import { defineConfig } from "vitest/config";

const infra = "./packages/testkit/src/globalSetup.ts";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["{packages,services,bench}/**/*.unit.test.ts"],
        },
      },
      {
        test: {
          name: "integration",
          include: ["{packages,services}/**/*.int.test.ts"],
          globalSetup: [infra],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["{packages,services,test}/**/*.e2e.test.ts"],
          globalSetup: [infra],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
