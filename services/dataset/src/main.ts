import { serviceMain } from "@argus/service-host";
import { dataset } from "./service.ts";

await serviceMain(dataset);
