import { serviceMain } from "@argus/service-host";
import { identity } from "./service.ts";

await serviceMain(identity);
