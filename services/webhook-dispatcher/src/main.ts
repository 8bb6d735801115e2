import { serviceMain } from "@argus/service-host";
import { webhookDispatcher } from "./service.ts";

await serviceMain(webhookDispatcher);
