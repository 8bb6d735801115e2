export type { WebhooksDeps } from "./deps.ts";
export { webhookDispatcher, webhookServices } from "./service.ts";
