import { bindService, type ServiceBinding } from "@argus/platform";
import type { EventStore } from "@argus/eventstore";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { ApiKeyServiceService } from "@argus/proto/identity/v1/api_keys";
import { AuditServiceService } from "@argus/proto/identity/v1/audit";
import type { Pool } from "pg";
import { apiKeyHandlers } from "./apiKeys.ts";
import { auditHandlers } from "./audit.ts";
import { authenticateHandler } from "./authenticate.ts";
import { organizationHandlers } from "./organizations.ts";
import { spaceHandlers } from "./spaces.ts";
import { userHandlers } from "./users.ts";
import { roleHandlers } from "./roles.ts";
import { roleBindingHandlers } from "./roleBindings.ts";
import { membershipHandlers } from "./memberships.ts";
import { lifecycleHandlers } from "./lifecycle.ts";
import { restrictionHandlers } from "./restrictions.ts";

export function identityService(deps: {
  pool: Pool;
  store: EventStore;
  pepper: string;
}): ServiceBinding {
  return bindService(IdentityServiceService, {
    authenticate: authenticateHandler(deps),
    ...organizationHandlers(deps),
    ...spaceHandlers(deps),
    ...lifecycleHandlers(deps),
    ...membershipHandlers(deps),
    ...userHandlers(deps),
    ...roleHandlers(deps),
    ...roleBindingHandlers(deps),
    ...restrictionHandlers(deps),
  });
}

/** Every gRPC service identity serves. */
export function identityServices(deps: {
  pool: Pool;
  store: EventStore;
  pepper: string;
}): ServiceBinding[] {
  return [
    identityService(deps),
    bindService(ApiKeyServiceService, apiKeyHandlers(deps)),
    bindService(AuditServiceService, auditHandlers(deps)),
  ];
}
