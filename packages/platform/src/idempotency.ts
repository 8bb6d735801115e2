import * as aiIntegrations from "@argus/proto/catalog/v1/ai_integrations";
import * as annotations from "@argus/proto/catalog/v1/annotations";
import * as configDirectory from "@argus/proto/catalog/v1/config_directory";
import * as evaluators from "@argus/proto/catalog/v1/evaluators";
import * as integrations from "@argus/proto/catalog/v1/integrations";
import * as projectDirectory from "@argus/proto/catalog/v1/project_directory";
import * as projects from "@argus/proto/catalog/v1/projects";
import * as prompts from "@argus/proto/catalog/v1/prompts";
import * as tags from "@argus/proto/catalog/v1/tags";
import * as datasetBulk from "@argus/proto/dataset/v1/bulk";
import * as dataset from "@argus/proto/dataset/v1/dataset";
import * as apiKeys from "@argus/proto/identity/v1/api_keys";
import * as audit from "@argus/proto/identity/v1/audit";
import * as directory from "@argus/proto/identity/v1/directory";
import * as idempotency from "@argus/proto/identity/v1/idempotency";
import * as identity from "@argus/proto/identity/v1";
import * as dashboards from "@argus/proto/tracing/v1/dashboards";
import * as monitors from "@argus/proto/tracing/v1/monitors";
import * as tracing from "@argus/proto/tracing/v1/tracing";
import * as tasks from "@argus/proto/tasks/v1/tasks";
import * as webhooks from "@argus/proto/webhooks/v1/webhooks";

/** What ts-proto's generic service definitions carry of a method's `idempotency_level`. */
export interface ServiceDefinitionView {
  readonly fullName: string;
  readonly methods: Readonly<
    Record<
      string,
      {
        readonly name: string;
        readonly options: { readonly idempotencyLevel?: "NO_SIDE_EFFECTS" | "IDEMPOTENT" };
      }
    >
  >;
}

const isDefinition = (v: unknown): v is ServiceDefinitionView =>
  typeof v === "object" && v !== null && "fullName" in v && "methods" in v;

/** The generic definitions exported by generated modules (one import per .proto with a service). */
export function serviceDefinitionsOf(...modules: object[]): ServiceDefinitionView[] {
  return modules.flatMap((m) => Object.values(m).filter(isDefinition));
}

const MODULES = [
  aiIntegrations,
  annotations,
  configDirectory,
  evaluators,
  integrations,
  projectDirectory,
  projects,
  prompts,
  tags,
  datasetBulk,
  dataset,
  apiKeys,
  audit,
  directory,
  idempotency,
  identity,
  dashboards,
  monitors,
  tracing,
  tasks,
  webhooks,
];

const REPEATABLE = new Set(
  serviceDefinitionsOf(...MODULES).flatMap((d) =>
    Object.values(d.methods)
      .filter((m) => m.options.idempotencyLevel !== undefined)
      .map((m) => `/${d.fullName}/${m.name}`),
  ),
);

/**
 * Whether the method at `path` (`/argus.identity.v1.IdentityService/GetSpace`) is declared
 * `NO_SIDE_EFFECTS` or `IDEMPOTENT` in proto/, i.e. safe to retry. Unknown paths are not.
 */
export const isIdempotent = (path: string): boolean => REPEATABLE.has(path);
