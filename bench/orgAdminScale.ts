import type { Benchmark } from "./benchmark.ts";
import { withBenchStack } from "./stack.ts";

const LARGE = 10_000;
const SMALL = 10;

/**
 * Whether a request costs more for a bigger account (issue 8): GET /v2/spaces/{id} by an
 * organization admin (a SERVICE key with the organization role ADMIN) of 10 000 spaces versus
 * one of 10 spaces, in one stack, so the only difference is the size of what they administer.
 */
export async function orgAdminScaleBenchmark(): Promise<Benchmark> {
  return withBenchStack(async ({ stack, stop }) => {
    const admin = { authorization: `Bearer ${stack.apiKey}` };
    const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(stack.baseUrl + path, {
        method: "POST",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status !== 201)
        throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const organizationOf = async (name: string, spaces: number) => {
      const org = (await post("/v2/organizations", { name, description: "" })).id as string;
      const ids: string[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 12 }, async () => {
          while (next < spaces) {
            const i = next++;
            const s = await post("/v2/spaces", { organization_id: org, name: `${name}-${i}` });
            ids.push(s.id as string);
          }
        }),
      );
      const key = await post("/v2/api-keys", {
        key_type: "SERVICE",
        name: `${name} admin`,
        organizations: [{ org_id: org, role: { name: "ADMIN" }, spaces: [{ space_id: ids[0] }] }],
      });
      // The space read is not the one bound: the organization role is what grants it.
      const target = ids[ids.length - 1]!;
      return {
        url: `${stack.baseUrl}/v2/spaces/${encodeURIComponent(target)}`,
        headers: { authorization: `Bearer ${key.key as string}` },
      };
    };
    const large = await organizationOf("large", LARGE);
    const small = await organizationOf("small", SMALL);
    const pids = {
      gateway: stack.processes.gateway!.pid,
      identity: stack.processes.identity!.pid,
    };
    return {
      name: `GET /v2/spaces/{id} as an organization admin: ${LARGE} spaces vs ${SMALL}`,
      subject: { name: `admin of ${LARGE}`, ...large, pids },
      baseline: { name: `admin of ${SMALL}`, ...small, pids },
      stop,
    };
  });
}
