import { serviceMain } from "@argus/eventstore";
import { tracing } from "./service.ts";

await serviceMain(tracing);
