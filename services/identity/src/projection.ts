import { projector } from "@argus/eventstore";
import type { IdentityEvent } from "@argus/contracts";
import { accessProjections } from "./access.ts";
import { apiKeyProjections } from "./apiKeys.ts";
import { tenancyProjections } from "./tenancy.ts";
import { userProjections } from "./users.ts";

/** Identity's inline projections, one per event type (the compiler checks none is missing). */
export const project = projector<IdentityEvent>("identity", {
  ...tenancyProjections,
  ...userProjections,
  ...accessProjections,
  ...apiKeyProjections,
});
