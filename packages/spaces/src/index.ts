// @argus/spaces: what every service that owns space-scoped resources (the catalog, dataset,
// ...) shares to authorize them through identity's spaces, one implementation for all.
export type { AccessFactsOf, SpaceRef, Spaces } from "./spaces.ts";
export { identitySpaces } from "./spaces.ts";
export type { RowPlace } from "./spaceAccess.ts";
export {
  SPACE_FACTS,
  creatorUserId,
  spaceMetadata,
  confirmListed,
  filteredSpaceIds,
  listableSpaces,
  requireCreatable,
  requirePermissionAt,
} from "./spaceAccess.ts";
export type { SpaceRow } from "./rows.ts";
export {
  authorized,
  firstWhere,
  json,
  placeOf,
  projectPlaceOf,
  rowById,
  rowInAccount,
} from "./rows.ts";
export { projectSpaceFacts, restrictionsConsumer } from "./accessFacts.ts";
export type { Cascade, OnSpaceDeleted } from "./spaceEvents.ts";
export {
  CASCADE_ACTOR,
  causedBy,
  cascadeMetadata,
  cascadeScope,
  spaceDeletedOf,
  spaceEventsConsumer,
  unlessGone,
} from "./spaceEvents.ts";
export { ACCESS_FACTS_SQL, accessFactsMigration } from "./migrations.ts";
export type { AnnotationInput, ConfigRules } from "./annotations.ts";
export { annotationChunks, decideAnnotations, namesOf } from "./annotations.ts";
export type { AnnotationConfigs } from "./annotationConfigs.ts";
export { catalogAnnotationConfigs } from "./annotationConfigs.ts";
export type { Annotators } from "./annotators.ts";
export { identityAnnotators } from "./annotators.ts";
export { isUuid } from "@argus/platform";
