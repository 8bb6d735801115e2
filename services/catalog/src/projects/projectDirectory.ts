import { streamId } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import { DomainError, uuidv7, type CallContext } from "@argus/platform";
import { isUuid } from "@argus/spaces";
import type {
  DirectoryProject,
  EnsureProjectRequest,
  ResolveProjectsRequest,
  ResolveProjectsResponse,
} from "@argus/proto/catalog/v1/project_directory";
import { projectDecider } from "./projectDecider.ts";
import type { CatalogDeps } from "../deps.ts";

const MAX_IDS = 100;

interface DirectoryRow {
  id: string;
  account_id: string;
  space_id: string;
  name: string;
}

const toDirectoryProject = (r: DirectoryRow): DirectoryProject => ({
  id: r.id,
  accountId: r.account_id,
  spaceId: r.space_id,
  name: r.name,
});

/**
 * ProjectDirectory: served to the tracing service only (service.ts), as itself. It has
 * authorized its caller (PROJECT_SPAN_CREATE in the space) before it asks for a project, so
 * ingestion creates the project it names on first use, as the public platform does, without
 * the sender needing PROJECT_CREATE.
 */
export function projectDirectoryQueries({
  pool,
  commands,
  clock,
}: Pick<CatalogDeps, "pool" | "commands" | "clock">) {
  const named = async (accountId: string, spaceId: string, name: string) =>
    (
      await tracedQuery<DirectoryRow>(
        pool,
        "project by name",
        `select id, account_id, space_id, name from projects
          where account_id = $1 and space_id = $2 and name = $3`,
        [accountId, spaceId, name],
      )
    ).rows[0];

  return {
    async resolveProjects(
      req: ResolveProjectsRequest,
      _ctx: CallContext,
    ): Promise<ResolveProjectsResponse> {
      if (!isUuid(req.accountId))
        throw new DomainError("invalid-request", "account_id must be an id");
      if (req.ids.length > MAX_IDS)
        throw new DomainError("invalid-request", `at most ${MAX_IDS} ids`);
      const res = await tracedQuery<DirectoryRow>(
        pool,
        "resolve projects",
        `select id, account_id, space_id, name from projects
          where account_id = $1 and id = any($2::uuid[])`,
        [req.accountId, req.ids.filter(isUuid)],
      );
      return { projects: res.rows.map(toDirectoryProject) };
    },

    async ensureProject(req: EnsureProjectRequest, ctx: CallContext): Promise<DirectoryProject> {
      if (!isUuid(req.accountId) || !isUuid(req.spaceId))
        throw new DomainError("invalid-request", "account_id and space_id must be ids");
      const existing = await named(req.accountId, req.spaceId, req.name);
      if (existing) return toDirectoryProject(existing);
      const id = uuidv7();
      const metadata = {
        account_id: req.accountId,
        actor_user_id: req.actorUserId,
        actor_service_account_id: req.actorServiceAccountId,
        api_key_id: req.apiKeyId,
        request_id: ctx.requestId,
        client_ip: ctx.clientIp,
        space_id: req.spaceId,
      };
      try {
        await commands.handle(
          streamId("project", id),
          projectDecider,
          {
            type: "CreateProject",
            id,
            accountId: req.accountId,
            spaceId: req.spaceId,
            name: req.name,
            now: clock.now(),
          },
          metadata,
        );
        return { id, accountId: req.accountId, spaceId: req.spaceId, name: req.name };
      } catch (err) {
        // Two first batches of one project raced: the other one created it.
        const raced = await named(req.accountId, req.spaceId, req.name);
        if (raced) return toDirectoryProject(raced);
        throw err;
      }
    },
  };
}
