import { serviceMain } from "@argus/service-host";
import { catalog } from "./service.ts";

await serviceMain(catalog);
