import { serviceMain } from "@argus/eventstore";
import { taskRunner } from "./service.ts";

await serviceMain(taskRunner);
