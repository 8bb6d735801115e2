import { bindService, type ServiceBinding } from "@argus/platform";
import type { EventStore } from "@argus/eventstore";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { authenticateHandler } from "./authenticate.ts";
import { organizationHandlers } from "./organizations.ts";
import { spaceHandlers } from "./spaces.ts";

export function identityService(deps: {
  pool: Pool;
  store: EventStore;
  pepper: string;
}): ServiceBinding {
  return bindService(IdentityServiceService, {
    authenticate: authenticateHandler(deps),
    ...organizationHandlers(deps),
    ...spaceHandlers(deps),
  });
}
