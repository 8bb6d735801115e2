import { defineConfig } from "vitest/config";

const infra = "./packages/testkit/src/globalSetup.ts";

export default defineConfig({
  test: {
    reporters: ["default", "./scripts/summaryReporter.ts"],
    projects: [
      {
        test: {
          name: "unit",
          sequence: { groupOrder: 0 },
          include: ["{packages,services,bench}/**/*.unit.test.ts"],
        },
      },
      {
        test: {
          name: "integration",
          sequence: { groupOrder: 1 },
          include: ["{packages,services,test}/**/*.int.test.ts"],
          globalSetup: [infra],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "e2e",
          sequence: { groupOrder: 2 },
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
