export * from "./streams.ts";
export type * from "./identity.ts";
export type * from "./catalog.ts";
export type * from "./dataset.ts";
export type * from "./tracing.ts";
export type * from "./monitors.ts";
export type * from "./webhooks.ts";
export type * from "./tasks.ts";
export * from "./limits.ts";
