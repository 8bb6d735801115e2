import type { TestProject } from "vitest/node";
import { startInfra } from "./infra.ts";

/** Vitest globalSetup: one Postgres and one NATS for the whole run, shared via provide/inject. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { infra, stop } = await startInfra();
  project.provide("argusInfra", infra);
  return stop;
}
