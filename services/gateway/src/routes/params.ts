import { decodeId, notFound } from "@argus/platform";
import type { PageRequest } from "@argus/proto/common/v1";
import type { ApiRequest } from "../http/handler.ts";

export interface SpaceListQuery {
  page: PageRequest;
  spaceId: string;
  spaceName: string;
  name: string;
}

/**
 * The filters every space-level list takes, as the public API names them: `space_id`,
 * `space_name` and a case-insensitive `name` substring. A `space_id` that cannot name a space
 * matches nothing, exactly like the id of a space that does not exist: `null` then.
 */
export function spaceListQuery(req: ApiRequest): SpaceListQuery | null {
  const raw = req.query.space_id as string | undefined;
  const spaceId = raw === undefined ? "" : decodeId("Space", raw);
  if (spaceId === null) return null;
  return {
    page: req.page,
    spaceId,
    spaceName: (req.query.space_name as string | undefined) ?? "",
    name: (req.query.name as string | undefined) ?? "",
  };
}

/** The uuid inside a path id of the given type; garbage or another type is a 404, like an unknown id. */
export function pathId(type: string, raw: string | undefined, what: string): string {
  const id = decodeId(type, raw ?? "");
  if (id === null) throw notFound(what);
  return id;
}
