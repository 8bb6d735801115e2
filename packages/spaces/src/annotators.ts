import type { Client } from "@grpc/grpc-js";
import type { Annotator } from "@argus/contracts";
import {
  DomainError,
  callUnary,
  fromGrpcError,
  ownCall,
  type CallContext,
  type CallCredential,
} from "@argus/platform";
import { DirectoryServiceService } from "@argus/proto/identity/v1/directory";

/** Who annotates: the public API shows an annotation's annotator with their e-mail. */
export interface Annotators {
  /** The calling user as an annotator (a service account: none, its id and e-mail empty). */
  caller(ctx: CallContext): Promise<Annotator>;
}

/**
 * Asks identity's DirectoryService as the calling service itself (`self`), in the caller's
 * account: the caller's own e-mail, which it needs no right to list users to be shown with.
 * Written into the annotation when it is made, so a page of annotations costs no look-up.
 */
export function identityAnnotators(channel: Client, self: CallCredential): Annotators {
  return {
    async caller(ctx) {
      const p = ctx.principal;
      // A service account is no user: its annotations name no annotator (the API's annotator
      // is a user, with a User id).
      if (!p.userId) return { user_id: "", email: "" };
      try {
        const { users } = await callUnary(
          channel,
          DirectoryServiceService.resolveUsers,
          { accountId: p.accountId, emails: [], ids: [p.userId] },
          ownCall(ctx, self),
        );
        const user = users[0];
        if (!user) throw new DomainError("resource-not-found", "user not found");
        return { user_id: user.id, email: user.email };
      } catch (err) {
        throw err instanceof DomainError ? err : fromGrpcError(err);
      }
    },
  };
}
