import { serviceMain } from "@argus/service-host";
import { tracing } from "./service.ts";

await serviceMain(tracing);
