import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * The official Python SDK, pinned, in a virtualenv of its own under .tools/ (created from PyPI
 * on first use, as CI does on a fresh machine). Shared by the suites that drive it.
 */
const SDK =
  "arize==8.61.0 arize-otel==0.14.1 opentelemetry-sdk<1.40 opentelemetry-exporter-otlp-proto-http<1.40 opentelemetry-exporter-otlp-proto-grpc<1.40";
export const root = fileURLToPath(new URL("..", import.meta.url));
const venv = `${root}.tools/arize-8.61.0`;
export const python = `${venv}/bin/python`;
export const run = promisify(execFile);

const installed = () => {
  try {
    return readFileSync(`${venv}/.installed`, "utf8").trim() === SDK;
  } catch {
    return false;
  }
};

/**
 * The virtualenv with the pinned SDK: `./argus test` makes it before the suites start (they run
 * in parallel and must not race to create it); a suite run on its own by vitest makes it
 * through the same command.
 */
export async function ensurePythonSdk(): Promise<void> {
  if (installed()) return;
  await run(`${root}argus`, ["python-sdk"], { cwd: root, timeout: 300_000 });
  if (!installed()) throw new Error(`./argus python-sdk did not install ${SDK}`);
}
