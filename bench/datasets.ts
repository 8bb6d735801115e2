import { Agent, request } from "node:http";
import { decodeId } from "@argus/platform";
import type { Stack } from "@argus/testkit";

/** The admin key's JSON calls to the stack's `/v2` API, and the dataset steps the benchmarks share. */
export class Api {
  readonly stack: Stack;
  readonly headers: Record<string, string>;
  // node:http on kept-alive connections, as bench/load.ts sends its load: the client shares the
  // machine's two cores with the stack, and a global fetch cost it ~3x the CPU per call.
  readonly #agent = new Agent({ keepAlive: true });
  constructor(stack: Stack) {
    this.stack = stack;
    this.headers = { authorization: `Bearer ${stack.apiKey}` };
  }

  /** `method path` with a JSON body (already JSON text, or a value to stringify); throws unless `status`. */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    status: number,
    body?: unknown,
  ): Promise<T> {
    const text =
      body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        this.stack.baseUrl + path,
        {
          method,
          agent: this.#agent,
          headers: {
            ...this.headers,
            ...(text === undefined
              ? {}
              : { "content-type": "application/json", "content-length": Buffer.byteLength(text) }),
          },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on("data", (c: Buffer) => chunks.push(c));
          r.once("end", () =>
            resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
          );
          r.once("error", reject);
        },
      );
      req.once("error", reject);
      req.end(text);
    });
    if (res.status !== status) {
      throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    return (res.text ? JSON.parse(res.text) : {}) as T;
  }

  async defaultSpaceId(): Promise<string> {
    const { spaces } = await this.call<{ spaces: { id: string }[] }>("GET", "/v2/spaces", 200);
    const id = spaces[0]?.id;
    if (id === undefined) throw new Error("GET /v2/spaces: no space");
    return id;
  }
}

export interface CreatedDataset {
  /** The public id (base64 of "Dataset:<uuid>"). */
  id: string;
  uuid: string;
  /** Its first (only) version's uuid. */
  versionUuid: string;
}

/** Internal uuid of a public id of `type`; throws on anything else. */
export function uuidOf(type: string, publicId: string): string {
  const uuid = decodeId(type, publicId);
  if (uuid === null) throw new Error(`${publicId} is not a ${type} id`);
  return uuid;
}

/**
 * POST /v2/datasets, then its version from GET /v2/datasets/{id} (the create answer carries
 * `dataset_version_id` once it is the spec's write result; until then the dataset alone).
 */
export async function createDataset(
  api: Api,
  spaceId: string,
  name: string,
  examples: readonly Record<string, unknown>[],
): Promise<CreatedDataset> {
  const created = await api.call<{ id: string }>("POST", "/v2/datasets", 201, {
    name,
    space_id: spaceId,
    examples,
  });
  const got = await api.call<{ versions: { id: string }[] }>(
    "GET",
    `/v2/datasets/${encodeURIComponent(created.id)}`,
    200,
  );
  const version = got.versions[0];
  if (got.versions.length !== 1 || version === undefined) {
    throw new Error(`dataset ${created.id}: ${got.versions.length} versions, not 1`);
  }
  return {
    id: created.id,
    uuid: uuidOf("Dataset", created.id),
    versionUuid: uuidOf("DatasetVersion", version.id),
  };
}

export interface ExamplesPage {
  examples: ({ id: string } & Record<string, unknown>)[];
  pagination: { has_more: boolean; next_cursor?: string };
}

/** The path of GET /v2/datasets/{id}/examples at `limit`, after `cursor` when given. */
export function examplesPath(datasetId: string, limit: number, cursor?: string): string {
  const query = new URLSearchParams({ limit: String(limit) });
  if (cursor !== undefined) query.set("cursor", cursor);
  return `/v2/datasets/${encodeURIComponent(datasetId)}/examples?${query}`;
}

/** Fields of example `n` as the paging benchmark stores them: same length for every n. */
export function exampleFields(n: number): { input: string; output: string; n: number } {
  const padded = String(n).padStart(7, "0");
  return { input: `question ${padded}`, output: `answer ${padded}`, n };
}
