import type { Client } from "@grpc/grpc-js";
import {
  DomainError,
  callUnary,
  fromGrpcError,
  notFound,
  onwardCall,
  type CallContext,
} from "@argus/platform";
import { IdentityServiceService } from "@argus/proto/identity/v1";

export interface SpaceRef {
  id: string;
  name: string;
  organizationId: string;
}

/** Spaces belong to identity; the catalog only needs to know which exist for the caller. */
export interface Spaces {
  /** The space when it exists in the caller's account and is visible to them; else 404. */
  get(ctx: CallContext, spaceId: string): Promise<SpaceRef>;
  /** Ids of the visible spaces whose name contains `name`, case-insensitively. */
  idsNamed(ctx: CallContext, name: string): Promise<string[]>;
}

// A space_name filter matching more spaces than this is refused rather than half-applied.
const MAX_SPACES_PER_NAME_FILTER = 1000;

/** Asks identity over gRPC, acting as the caller, so visibility rules stay identity's. */
export function identitySpaces(channel: Client, principalSecret: string): Spaces {
  const opts = (ctx: CallContext) => onwardCall(ctx, principalSecret);
  return {
    async get(ctx, spaceId) {
      try {
        const s = await callUnary(
          channel,
          IdentityServiceService.getSpace,
          { id: spaceId },
          opts(ctx),
        );
        return { id: s.id, name: s.name, organizationId: s.organizationId };
      } catch (err) {
        const e = fromGrpcError(err);
        throw e.type === "resource-not-found" ? notFound("space") : e;
      }
    },
    async idsNamed(ctx, name) {
      const ids: string[] = [];
      let after = "";
      try {
        do {
          const res = await callUnary(
            channel,
            IdentityServiceService.listSpaces,
            { page: { limit: 100, after }, name, organizationId: "" },
            opts(ctx),
          );
          ids.push(...res.spaces.map((s) => s.id));
          after = res.page?.nextAfter ?? "";
        } while (after !== "" && ids.length < MAX_SPACES_PER_NAME_FILTER);
      } catch (err) {
        throw fromGrpcError(err);
      }
      if (after !== "")
        throw new DomainError("invalid-request", "space_name matches too many spaces; narrow it");
      return ids;
    },
  };
}
