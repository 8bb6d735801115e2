import type { Infra } from "./infra.ts";
import { createTestDatabase, type TestDatabase } from "./testDatabase.ts";
import { testInfra } from "./testInfra.ts";
import { uniqueName } from "./uniqueName.ts";

/** A fresh database, and what every in-process service of one test file is started with. */
export interface TestEnvironment {
  infra: Infra;
  db: TestDatabase;
  /**
   * The environment the test's services share: the database, NATS, and an events stream and
   * subject root of the test's own, so that tests running beside it never see its events.
   */
  env: {
    DATABASE_URL: string;
    NATS_URL: string;
    ARGUS_EVENTS_STREAM: string;
    ARGUS_SUBJECT_ROOT: string;
  };
}

/** `name` prefixes the stream (upper case) and the subject root, to tell them apart in NATS. */
export async function startTestEnvironment(name: string): Promise<TestEnvironment> {
  const infra = testInfra();
  const db = await createTestDatabase(infra);
  return {
    infra,
    db,
    env: {
      DATABASE_URL: db.url,
      NATS_URL: infra.natsUrl,
      ARGUS_EVENTS_STREAM: uniqueName(name.toUpperCase()),
      ARGUS_SUBJECT_ROOT: uniqueName(name),
    },
  };
}
