export { createApp } from "./app.ts";
export { startGateway, type RunningGateway } from "./server.ts";
export { loadGatewayConfig, type GatewayConfig } from "./config.ts";
export type { GatewayDeps } from "./app.ts";
export type { Authenticator } from "./auth/authenticate.ts";
export type { ApiRequest, ApiResponse, Handler, PageRequest } from "./http/handler.ts";
export { loadDocument, type LoadedDocument } from "./openapi/document.ts";
export { createResponseChecker } from "./openapi/responses.ts";
