import { serviceMain } from "@argus/eventstore";
import { webhookDispatcher } from "./service.ts";

await serviceMain(webhookDispatcher);
