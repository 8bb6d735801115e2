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
          // A file's first gateway compiles the served document's validators: ~1 s idle, over
          // the default 5 s on a CI machine that runs the other files beside it.
          testTimeout: 30_000,
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
          // One file at a time on any machine (vitest's default, on two cores): the files share
          // one Postgres and NATS and some cut their connections on purpose, which made another
          // file's relay back off past its test's bound when two ran at once.
          fileParallelism: false,
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
          // Two files at a time: each runs its own stack, and most of a file's time is waits
          // (startup, outages, deliveries), so on two cores the tier takes ~1 070 s, not the
          // ~1 400 s of one file at a time; faults are each file's own (its NATS, its Postgres).
          maxWorkers: 2,
        },
      },
      {
        // The whole system as containers of the images deploy/images/build.sh builds, one
        // stack shared by the files, which run one at a time (one of them kills a NATS node).
        test: {
          name: "containers",
          sequence: { groupOrder: 3 },
          include: ["{packages,services,test}/**/*.container.test.ts"],
          globalSetup: ["./packages/testkit/src/containerGlobalSetup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
