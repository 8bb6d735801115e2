import { serviceMain } from "@argus/service-host";
import { taskRunner } from "./service.ts";

await serviceMain(taskRunner);
