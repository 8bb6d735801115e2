import type { Client } from "@grpc/grpc-js";
import { AccountRole } from "@argus/proto/common/v1";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import {
  DomainError,
  callUnary,
  fromGrpcError,
  onwardCall,
  type CallContext,
} from "@argus/platform";
import type { Annotator } from "@argus/contracts";

/** Users belong to identity; queues name annotators by e-mail and show who annotated. */
export interface QueueUsers {
  /** Active users of the caller's account with exactly these e-mails; an unknown one is 422. */
  byEmails(ctx: CallContext, emails: string[]): Promise<Annotator[]>;
  /** The calling user as an annotator (e-mail empty for service accounts). */
  caller(ctx: CallContext): Promise<Annotator>;
}

/**
 * Asks identity over gRPC. Resolving an e-mail is the catalog's own lookup, not the caller
 * listing users, so it is made as an admin of the caller's account (the caller needs no
 * USER_READ to name annotators); it never leaves that account.
 */
export function identityQueueUsers(channel: Client, principalSecret: string): QueueUsers {
  const opts = (ctx: CallContext) => ({
    ...onwardCall(ctx, principalSecret),
    principal: { ...ctx.principal, accountRole: AccountRole.ACCOUNT_ROLE_ADMIN },
  });
  return {
    async byEmails(ctx, emails) {
      const wanted = [...new Set(emails.map((e) => e.toLowerCase()))];
      const found = await Promise.all(
        wanted.map(async (email) => {
          try {
            const res = await callUnary(
              channel,
              IdentityServiceService.listUsers,
              { page: { limit: 100, after: "" }, email, statuses: [] },
              opts(ctx),
            );
            const user = res.users.find((u) => u.email.toLowerCase() === email);
            return user?.status === "ACTIVE" ? { user_id: user.id, email: user.email } : undefined;
          } catch (err) {
            throw fromGrpcError(err);
          }
        }),
      );
      const missing = wanted.filter((_, i) => !found[i]);
      if (missing.length > 0)
        throw new DomainError(
          "unprocessable-entity",
          `no active user with e-mail ${missing.map((m) => JSON.stringify(m)).join(", ")}`,
        );
      return found as Annotator[];
    },
    async caller(ctx) {
      const p = ctx.principal;
      if (!p.userId) return { user_id: p.serviceAccountId, email: "" };
      try {
        const user = await callUnary(
          channel,
          IdentityServiceService.getUser,
          { id: p.userId },
          opts(ctx),
        );
        return { user_id: user.id, email: user.email };
      } catch (err) {
        throw fromGrpcError(err);
      }
    },
  };
}
