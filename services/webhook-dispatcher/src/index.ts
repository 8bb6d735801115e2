export { webhookDispatcher, webhookServices, type WebhooksDeps } from "./service.ts";
