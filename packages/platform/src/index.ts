// Configuration read from the environment, and the service registry it is named by.
export type { ConfigOf, EnvVar } from "./config.ts";
export {
  ConfigError,
  grpcTarget,
  int,
  loadConfig,
  natsServers,
  oneOf,
  parseNatsServers,
  optionalNatsServers,
  optionalSecret,
  optionalStr,
  secret,
  str,
  url,
} from "./config.ts";
export type { ServiceDescription } from "./registry.ts";
export {
  GATEWAY,
  SERVICE_REGISTRY,
  callKeysOf,
  callSigners,
  callersOf,
  entryOf,
  TELEMETRY_REGISTER,
  envPrefix,
  keyEnv,
  serviceEnv,
  serviceNamed,
} from "./registry.ts";

// NATS: each process's identity and rights, derived from the registry.
export {
  NATS_MANAGER,
  inboxPrefixOf,
  natsAuthorizationConfig,
  natsIdentities,
  principalInvalidationSubject,
} from "./natsIdentities.ts";
// NATS: reconnecting for as long as the process runs, with a jittered, growing wait.
export { natsReconnectOptions } from "./natsReconnect.ts";

// Logs, traces and metrics.
export type { Level, Logger } from "./logger.ts";
export { createLogger } from "./logger.ts";
export {
  currentSpan,
  processName,
  setHttpRoute,
  shutdownTelemetry,
  startTelemetry,
  telemetryEnabled,
  withQuerySummary,
} from "./telemetry.ts";
export { recordDuration } from "./metrics.ts";

// Time: the one clock handlers read; fixedClock pins it in tests (StartOptions.clock).
export type { Clock } from "./clock.ts";
export { fixedClock, systemClock } from "./clock.ts";

// Postgres: a service's pool on its own schema; every other pool, client and checkout, each
// with its error listener (the lint rule in eslint.config.js allows no other).
export { checkout, connectClient, createPool, inOneWrite, plainPool } from "./database.ts";

// Process: Buffers counted in the heap limit (every main sets it first).
export { countBuffersInHeapLimit } from "./heap.ts";

// Start-up: wait for Postgres and NATS to answer instead of exiting on the first refusal.
export type { UntilReachableOptions } from "./untilReachable.ts";
export { STARTUP_WAIT_MS, isUnreachable, untilReachable } from "./untilReachable.ts";

// gRPC: serving, calling with deadlines and retries, and the call's context.
export type {
  RecordedRequest,
  RequestReplies,
  RunningGrpcServer,
  ServiceBinding,
} from "./grpcServer.ts";
export { bindService, startGrpcServer } from "./grpcServer.ts";
export type { ClientMethod } from "./grpcClient.ts";
export type { ClientStreamCall, StreamMethod } from "./grpcStreaming.ts";
export { callClientStream, callServerStream } from "./grpcStreaming.ts";
export {
  DEFAULT_DEADLINE_MS,
  MAX_GRPC_MESSAGE_BYTES,
  callUnary,
  callPeer,
  findOnPeer,
  createChannel,
  onwardCall,
  ownCall,
} from "./grpcClient.ts";
export type { CallContext } from "./context.ts";
export { actorMetadata, currentCallSignal, currentRequestKey, runInCall } from "./context.ts";

// Safe retries: the Idempotency-Key as the gateway forwards it and services record it.
export type { ForwardedKey, RequestKey } from "./requestKeys.ts";
export {
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_TTL_MS,
  RequestAlreadyApplied,
  idempotencyScope,
  withholdReply,
} from "./requestKeys.ts";

// Signed calls between services: keys and credentials.
export type { CallCredential, CallKeyPair, PrincipalSigner } from "./callCredentials.ts";
export {
  callKeyEnv,
  generateCallKeyPair,
  generateCallKeys,
  noCredential,
  parsePrivateKey,
  parsePublicKey,
  principalSigner,
  privateKeyVar,
  publicKeyVar,
  serviceCredential,
} from "./callCredentials.ts";

// Errors: domain problems and their gRPC status.
export type { ProblemType } from "./errors.ts";
export {
  DomainError,
  describeError,
  PROBLEM_TYPES,
  asDomainError,
  fromGrpcError,
  isDependencyUnavailable,
  notFound,
  retryAfterOf,
  toGrpcError,
} from "./errors.ts";

// Principals, permissions and the authorization rules over them.
export { NOBODY, Principal } from "./principal.ts";
export type { Permission } from "./permissions.ts";
export {
  ACCOUNT_PERMISSIONS,
  PERMISSIONS,
  PREDEFINED_ROLES,
  isPermission,
  predefinedRole,
} from "./permissions.ts";
export type { ResourceAccess, SpaceFacts } from "./authorization.ts";
export {
  canSeeSpace,
  decideInSpace,
  grantedProjectIds,
  hasProjectPermission,
  hasSpacePermission,
  holdsAnywhere,
  isAccountAdmin,
  isMember,
  requireAccountAdmin,
  requireAnywhere,
  requireResourcePermission,
  requireSpacePermission,
  requireSpacePermissionTo,
  spaceRuleSql,
} from "./authorization.ts";

// Ids and pages.
export {
  decodeCanonicalId,
  decodeId,
  encodeId,
  isUuid,
  isUuidAnyCase,
  isUuidList,
  joinedUuidsOf,
  publicIdSql,
  uuidv7,
} from "./ids.ts";
export type { Lifecycle, LiveOf } from "./lifecycle.ts";
export { requireLive, requireNew, unreachable } from "./lifecycle.ts";
export { clampLimit, fetchSize, newestAfter, newestKeyOf, pageOf } from "./paging.ts";

// Secrets: HMAC keys made once per secret, and secrets sealed at rest.
export { secretKeyOf } from "./secretKey.ts";
export { hmacSha256Under } from "./hmacSha256.ts";
export type { SecretBox } from "./sealedSecrets.ts";
export { secretBox } from "./sealedSecrets.ts";

// Outbound HTTP: every request to a user-given address goes through one guard.
export type { OutboundPolicy, OutboundResult, Resolve } from "./outbound.ts";
export { checkDestinationUrl, sendOutbound } from "./outbound.ts";
export type { BatchLimits } from "./copyColumns.ts";
export { columnBatches } from "./copyColumns.ts";
export { decodeExportMessage, encodeExportMessage } from "./exportMessage.ts";
