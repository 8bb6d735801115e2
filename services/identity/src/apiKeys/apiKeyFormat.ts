// The format is shared with the gateway, which checks it before calling identity: one
// implementation, in @argus/contracts.
export * from "@argus/contracts/apiKeyFormat";
