import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * The official Python SDK, pinned, in a virtualenv of its own under .tools/ (created from PyPI
 * on first use, as CI does on a fresh machine). Shared by the suites that drive it.
 */
export const SDK =
  "arize==8.61.0 arize-otel==0.14.1 opentelemetry-sdk<1.40 opentelemetry-exporter-otlp-proto-http<1.40 opentelemetry-exporter-otlp-proto-grpc<1.40";
export const root = fileURLToPath(new URL("..", import.meta.url));
const venv = `${root}.tools/arize-8.61.0`;
export const python = `${venv}/bin/python`;
export const run = promisify(execFile);

/** The `ax` CLI, in a virtualenv of its own (./argus makes both). */
export const AX_CLI = "arize-ax-cli==0.39.0";

const marked = (dir: string, packages: string) => {
  try {
    return readFileSync(`${dir}/.installed`, "utf8").trim() === packages;
  } catch {
    return false;
  }
};
const installed = () => marked(venv, SDK) && marked(`${root}.tools/ax-cli`, AX_CLI);

/**
 * The virtualenv with the pinned SDK: `./argus test` makes it before the suites start (they run
 * in parallel and must not race to create it); a suite run on its own by vitest makes it
 * through the same command.
 */
export async function ensurePythonSdk(): Promise<void> {
  if (installed()) return;
  await run(`${root}argus`, ["python-sdk"], { cwd: root, timeout: 300_000 });
  if (!installed()) throw new Error(`./argus python-sdk did not install ${SDK} and ${AX_CLI}`);
}
