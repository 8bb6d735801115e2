import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenLocal } from "@argus/testkit";
import { ItemError, type CustomCodeConfig } from "../src/worker/managedEvaluators.ts";
import {
  customSandbox,
  resolveIsolation,
  type Isolation,
  type SandboxOptions,
} from "../src/worker/sandbox.ts";

const config = (code: string, more: Partial<CustomCodeConfig> = {}): CustomCodeConfig => ({
  name: "custom",
  code,
  imports: null,
  variables: ["output"],
  static_params: [],
  ...more,
});
const options = (isolation: Isolation, more: Partial<SandboxOptions> = {}): SandboxOptions => ({
  python: "python3",
  isolation,
  timeoutMs: 1_500,
  memoryBytes: 256 * 1024 * 1024,
  outputBytes: 4_096,
  processes: 1,
  ...more,
});
const outcome = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    (v) => v,
    (err: unknown) =>
      err instanceof ItemError ? `error: ${err.message}` : `thrown ${String(err)}`,
  );

const good = `
from arize.experiments.evaluators.base import CodeEvaluator, EvaluationResult

class Exact(CodeEvaluator):
    def evaluate(self, *, output, expected, **kwargs):
        ok = output == expected
        return EvaluationResult(label=self.verdicts[int(ok)], score=float(ok) * float(self.weight),
                                explanation=f"{output!r} vs {expected!r}")
`;
const goodParams = [
  { name: "verdicts", type: "STRING_ARRAY", default_value: ["wrong", "right"] },
  { name: "weight", type: "STRING", default_value: "2" },
];

// A loopback server no evaluator may reach: any connection it sees is a breach.
let canary: Server;
let canaryPort = 0;
let canaryConnections = 0;
beforeAll(async () => {
  canary = createServer((s) => {
    canaryConnections++;
    s.destroy();
  });
  canaryPort = await listenLocal(canary);
});
afterAll(() => canary.close());

describe("the CUSTOM evaluator sandbox", () => {
  it("resolves auto to a network namespace where unshare works here, else hooks", () => {
    expect(["namespace", "hooks"]).toContain(resolveIsolation("auto", "python3"));
    expect(resolveIsolation("off", "python3")).toBe("off");
    expect(resolveIsolation("hooks", "python3")).toBe("hooks");
  });

  it("evaluates items with the SDK's names, static parameters as attributes, variables as arguments", async () => {
    const box = customSandbox(
      options("hooks", { processes: 2 }),
      config(good, { variables: ["output", "expected"], static_params: goodParams }),
    );
    try {
      const verdicts = await Promise.all(
        ["a", "b", "a", "c"].map((output) => box.evaluate({ output, expected: "a" })),
      );
      expect(verdicts.map((v) => [v.label, v.score])).toEqual([
        ["right", 2],
        ["wrong", 0],
        ["right", 2],
        ["wrong", 0],
      ]);
      expect(verdicts[1]!.explanation).toBe("'b' vs 'a'");
    } finally {
      box.close();
    }
  });

  it("reads bool, number, str and dict answers; None is the item's error", async () => {
    const code = `
class Any:
    def evaluate(self, output, **kwargs):
        return {"bool": True, "num": 0.25, "str": "maybe", "dict": {"label": "x", "score": 3},
                "none": None}[output]
`;
    const box = customSandbox(options("hooks"), config(code));
    try {
      const got = [];
      for (const output of ["bool", "num", "str", "dict", "none"])
        got.push(await outcome(box.evaluate({ output }).then((v) => [v.label, v.score])));
      expect(got).toEqual([
        ["true", 1],
        ["0.25", 0.25],
        ["maybe", 0],
        ["x", 3],
        "error: the evaluator returned neither a label nor a score",
      ]);
    } finally {
      box.close();
    }
  });

  it("code that does not load fails every item with why, without a process per item", async () => {
    const box = customSandbox(options("hooks"), config("class Broken(:\n  pass"));
    const noClass = customSandbox(options("hooks"), config("x = 1"));
    try {
      const first = await outcome(box.evaluate({ output: "a" }));
      expect(first).toMatch(/does not load: SyntaxError/);
      const started = performance.now();
      for (let i = 0; i < 50; i++) expect(await outcome(box.evaluate({ output: "a" }))).toBe(first);
      // Fifty Python starts would take seconds; these are answered without one.
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(await outcome(noClass.evaluate({ output: "a" }))).toMatch(
        /defines no class with an evaluate method/,
      );
    } finally {
      box.close();
      noClass.close();
    }
  });

  // Each breach is stopped, is that item's error, and the next item runs in a fresh process.
  const breaches: [string, string, RegExp][] = [
    ["loops forever", "while True: pass", /did not answer within 1500 ms/],
    [
      "allocates without bound",
      "chunks = []\n        while True: chunks.append(bytearray(16 * 1024 * 1024))",
      /MemoryError/,
    ],
    ["exits", "import os; os._exit(3)", /process ended \(exit 3\)/],
    ["raises SystemExit", "raise SystemExit(0)", /SystemExit/],
    ["answers too much", "return 'x' * 100_000", /answer exceeded 4096 bytes/],
    [
      "kills its parent",
      "import os; os.kill(os.getppid(), 9)",
      /signalling processes is not allowed/,
    ],
    ["starts a process", "import subprocess; subprocess.run(['true'])", /starting processes/],
    ["writes a file", "open('x', 'w').write('y')", /writing files is not allowed/],
    [
      "reads the worker's environment",
      "import os; return open(f'/proc/{os.getppid()}/environ').read()",
      /reading \/proc is not allowed/,
    ],
    ["loads native code", "import ctypes", /loading native code/],
  ];
  for (const [what, body, why] of breaches)
    it(`an evaluator that ${what} is stopped; the next item runs`, async () => {
      const code = `
class Breach:
    def evaluate(self, output, **kwargs):
        if output == "ok":
            return "fine"
        ${body}
`;
      const box = customSandbox(options("hooks"), config(code));
      try {
        expect(await outcome(box.evaluate({ output: "breach" }))).toMatch(why);
        expect(await outcome(box.evaluate({ output: "ok" }).then((v) => v.label))).toBe("fine");
      } finally {
        box.close();
      }
    });

  for (const isolation of ["namespace", "hooks"] as const)
    it(`opening a socket (isolation ${isolation}) is the item's error and reaches nothing`, async () => {
      if (isolation === "namespace" && resolveIsolation("auto", "python3") !== "namespace") return;
      const code = `
import socket
class Caller:
    def evaluate(self, output, **kwargs):
        socket.create_connection(("127.0.0.1", ${canaryPort}), timeout=1).close()
        return "connected"
`;
      // Under "namespace" the hooks are off here: the namespace alone must stop it.
      const box = customSandbox(options(isolation, { hooks: isolation === "hooks" }), config(code));
      try {
        expect(await outcome(box.evaluate({ output: "x" }))).toMatch(
          isolation === "namespace" ? /unreachable/i : /network access is not allowed/,
        );
        expect(canaryConnections).toBe(0);
      } finally {
        box.close();
      }
    });

  it("sees no environment of the worker", async () => {
    process.env.ARGUS_SANDBOX_TEST_SECRET = "s3cret";
    const code = `
import os
class Env:
    def evaluate(self, output, **kwargs):
        return ",".join(sorted(k for k in os.environ if k != "LC_CTYPE"))
`;
    const box = customSandbox(options("hooks"), config(code));
    try {
      expect((await box.evaluate({ output: "x" })).label).toBe("LANG");
    } finally {
      box.close();
      delete process.env.ARGUS_SANDBOX_TEST_SECRET;
    }
  });
});
