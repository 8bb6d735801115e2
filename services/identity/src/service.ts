import {
  defineService,
  loadMigrations,
  migrationsDirOf,
  type ServiceDeps,
} from "@argus/service-host";
import { bindService, inboxPrefixOf, principalInvalidationSubject } from "@argus/platform";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { ApiKeyServiceService } from "@argus/proto/identity/v1/api_keys";
import { AuditServiceService } from "@argus/proto/identity/v1/audit";
import { DirectoryServiceService } from "@argus/proto/identity/v1/directory";
import { IdempotencyServiceService } from "@argus/proto/identity/v1/idempotency";
import { auditConsumer } from "./auditLogs/auditConsumer.ts";
import { gatewayLeaseHandler } from "./authentication/gatewayLeases.ts";
import { idempotencyKeyHandlers } from "./idempotencyKeys/idempotencyKeyService.ts";
import { natsPrincipalInvalidator } from "./authentication/principalInvalidation.ts";
import { apiKeyChanges } from "./apiKeys/apiKeyChanges.ts";
import { apiKeyCreation } from "./apiKeys/apiKeyCommands.ts";
import { invalidatingCommands } from "./authentication/authorizationChanges.ts";
import { initialize } from "./initialization/initialize.ts";
import { invitationCommands } from "./users/invitationCommands.ts";
import { organizationCommands } from "./organizations/organizationCommands.ts";
import { organizationMemberCommands } from "./organizations/organizationMemberCommands.ts";
import { restrictionCommands } from "./resourceRestrictions/restrictionCommands.ts";
import { roleBindingCommands } from "./roleBindings/roleBindingCommands.ts";
import { roleCommands } from "./roles/roleCommands.ts";
import { spaceCommands } from "./spaces/spaceCommands.ts";
import { spaceMemberCommands } from "./spaces/spaceMemberCommands.ts";
import { userCommands } from "./users/userCommands.ts";
import { identityConfigSpec } from "./config.ts";
import type { IdentityDeps } from "./deps.ts";
import { project } from "./projection.ts";
import { syncPredefinedRoles } from "./roles/predefinedRoles.ts";
import { apiKeyQueries } from "./apiKeys/apiKeyQueries.ts";
import { auditQueries } from "./auditLogs/auditLogQueries.ts";
import { authenticateHandler } from "./authentication/authenticate.ts";
import { directoryQueries } from "./users/userDirectory.ts";
import { organizationQueries } from "./organizations/organizationQueries.ts";
import { restrictionQueries } from "./resourceRestrictions/restrictionQueries.ts";
import { roleBindingQueries } from "./roleBindings/roleBindingQueries.ts";
import { roleQueries } from "./roles/roleQueries.ts";
import { spaceQueries } from "./spaces/spaceQueries.ts";
import { userQueries } from "./users/userQueries.ts";

const handlerDeps = (d: ServiceDeps<typeof identityConfigSpec>): IdentityDeps => ({
  pool: d.pool,
  commands: invalidatingCommands(
    d.commands,
    natsPrincipalInvalidator({
      pool: d.pool,
      nc: d.nc,
      subject: principalInvalidationSubject(d.config.subjectRoot),
      // The prefix the runtime gave this connection: the only replies its identity may read.
      inboxPrefix: inboxPrefixOf(identity.description.name),
      logger: d.logger,
    }),
  ),
  pepper: d.config.ARGUS_API_KEY_PEPPER,
  clock: d.clock,
});

export const identity = defineService("identity", {
  config: identityConfigSpec,
  migrations: loadMigrations(migrationsDirOf("identity")),
  project,
  consumers: (d) => [auditConsumer(d.config.subjectRoot)],
  async init(d) {
    await syncPredefinedRoles(d.pool);
    const c = d.config;
    if (c.ARGUS_INIT_API_KEY)
      await initialize(
        { ...handlerDeps(d), logger: d.logger },
        {
          orgName: c.ARGUS_INIT_ORG_NAME,
          spaceName: c.ARGUS_INIT_SPACE_NAME,
          adminEmail: c.ARGUS_INIT_ADMIN_EMAIL,
          adminName: c.ARGUS_INIT_ADMIN_NAME,
          apiKey: c.ARGUS_INIT_API_KEY,
        },
      );
  },
  grpc(d) {
    const deps = handlerDeps(d);
    return [
      bindService(
        IdentityServiceService,
        {
          authenticate: authenticateHandler(deps),
          renewGatewayLease: gatewayLeaseHandler({
            pool: d.pool,
            leaseMs: d.config.ARGUS_GATEWAY_LEASE_MS,
          }),
          ...organizationQueries(deps),
          ...organizationCommands(deps),
          ...organizationMemberCommands(deps),
          ...spaceQueries(deps),
          ...spaceCommands(deps),
          ...spaceMemberCommands(deps),
          ...userQueries(deps),
          ...userCommands(deps),
          ...invitationCommands(deps),
          ...roleQueries(deps),
          ...roleCommands(deps),
          ...roleBindingQueries(deps),
          ...roleBindingCommands(deps),
          ...restrictionQueries(deps),
          ...restrictionCommands(deps),
        },
        // Before a caller is known, the gateway calls as itself.
        {
          authenticate: ["gateway"],
          acceptInvitation: ["gateway"],
          renewGatewayLease: ["gateway"],
        },
      ),
      bindService(ApiKeyServiceService, {
        ...apiKeyQueries(deps),
        ...apiKeyCreation(deps),
        ...apiKeyChanges(deps),
      }),
      bindService(AuditServiceService, auditQueries(deps)),
      // The gateway keeps its answers to requests sent with an Idempotency-Key here, as itself.
      bindService(
        IdempotencyServiceService,
        idempotencyKeyHandlers({ pool: d.pool, clock: d.clock }),
        { begin: ["gateway"], complete: ["gateway"] },
      ),
      // The catalog names annotators by e-mail; it resolves them as itself, not as the caller.
      bindService(DirectoryServiceService, directoryQueries(deps), {
        // The catalog names annotators by e-mail; the services that store annotations show
        // their annotator's e-mail.
        resolveUsers: ["catalog", "dataset", "tracing"],
      }),
    ];
  },
});
