export * from "./streams.ts";
export type * from "./identity.ts";
export type * from "./catalog.ts";
export * from "./limits.ts";
