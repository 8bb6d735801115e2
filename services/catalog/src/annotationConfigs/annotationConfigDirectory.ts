import { tracedQuery } from "@argus/eventstore";
import { DomainError, type CallContext } from "@argus/platform";
import { isUuid } from "@argus/spaces";
import type {
  ResolveAnnotationConfigsRequest,
  ResolveAnnotationConfigsResponse,
} from "@argus/proto/catalog/v1/config_directory";
import { ANNOTATION_CONFIG_COLUMNS, type AnnotationConfigRow } from "./annotationConfigRows.ts";
import type { CatalogDeps } from "../deps.ts";

const MAX_NAMES = 100;

/** AnnotationConfigDirectory: served only to the services storing annotations, as itself. */
export function annotationConfigDirectoryQueries({ pool }: Pick<CatalogDeps, "pool">) {
  return {
    async resolveAnnotationConfigs(
      req: ResolveAnnotationConfigsRequest,
      _ctx: CallContext,
    ): Promise<ResolveAnnotationConfigsResponse> {
      if (!isUuid(req.accountId) || !isUuid(req.spaceId))
        throw new DomainError("invalid-request", "account_id and space_id must be ids");
      if (req.names.length > MAX_NAMES)
        throw new DomainError("invalid-request", `at most ${MAX_NAMES} names`);
      const res = await tracedQuery<AnnotationConfigRow>(
        pool,
        "resolve annotation configs",
        `select ${ANNOTATION_CONFIG_COLUMNS} from annotation_configs
          where account_id = $1 and space_id = $2 and name = any($3::text[])`,
        [req.accountId, req.spaceId, req.names],
      );
      return {
        configs: res.rows.map((r) => ({
          name: r.name,
          type: r.type,
          labels: r.values.map((v) => v.label),
          ...(r.minimum_score === null ? {} : { minimumScore: r.minimum_score }),
          ...(r.maximum_score === null ? {} : { maximumScore: r.maximum_score }),
        })),
      };
    },
  };
}
