// The handler types are the document's: `pnpm typecheck` checks this file, and each
// `@ts-expect-error` fails it the day the compiler stops refusing what follows.
import { describe, expectTypeOf, it } from "vitest";
import type {
  AnyOf,
  ApiRequest,
  Body,
  Handler,
  Handlers,
  PathParams,
  Query,
  ResourceHandlers,
} from "../src/http/handler.ts";

const answer = async () => ({ status: 204 });

describe("a handler's request is its operation's", () => {
  it("reads only the body fields the operation declares", () => {
    const create: Handler<"create_tag"> = async (req) => {
      expectTypeOf(req.body.name).toEqualTypeOf<string>();
      // Optional without a default: absent when the client left it out (bodies get no defaults).
      expectTypeOf(req.body.description).toEqualTypeOf<string | null | undefined>();
      // @ts-expect-error create_tag's body has no `tag_ids`
      void req.body.tag_ids;
      return answer();
    };
    void create;
  });

  it("reads only the query parameters the operation declares, paging in `page`", () => {
    const list: Handler<"list_tags"> = async (req) => {
      expectTypeOf(req.query).toEqualTypeOf<{
        space_id?: string;
        space_name?: string;
        name?: string;
      }>();
      // @ts-expect-error list_tags takes no `color` filter
      void req.query.color;
      // @ts-expect-error `limit` and `cursor` live in `page` on a paginated operation
      void req.query.limit;
      expectTypeOf(req.page.limit).toEqualTypeOf<number>();
      return answer();
    };
    void list;
  });

  it("reads only the path parameters the operation declares", () => {
    expectTypeOf<PathParams<"get_tag">>().toEqualTypeOf<{ tag_id: string }>();
    const list: Handler<"list_tags"> = async (req) => {
      // @ts-expect-error list_tags has no path parameter
      void req.params.tag_id;
      return answer();
    };
    void list;
  });

  it("has no body where the operation takes none, and maybe none where it is optional", () => {
    expectTypeOf<Body<"get_tag">>().toEqualTypeOf<undefined>();
    expectTypeOf<Body<"trigger_task_run">>().toExtend<object | undefined>();
    expectTypeOf<undefined>().toExtend<Body<"trigger_task_run">>();
    expectTypeOf<Query<"get_tag">>().toEqualTypeOf<Record<never, never>>();
  });

  it("types an `if`/`then`/`else` body as its branches", () => {
    type Trigger = NonNullable<Body<"trigger_task_run">>;
    const readRun = (b: Trigger) =>
      "experiment_name" in b ? b.experiment_name : b.data_start_time;
    expectTypeOf(readRun).returns.toEqualTypeOf<string | undefined>();
    // @ts-expect-error an evaluation trigger has no experiment name: narrow first
    const unnarrowed = (b: Trigger) => b.experiment_name;
    void unnarrowed;
  });

  it("reads every member's fields through AnyOf, required where all require them", () => {
    type U = { kind: "a"; a: number } | { kind: "b"; b?: string };
    expectTypeOf<AnyOf<U>>().toEqualTypeOf<{ kind: "a" | "b"; a?: number; b?: string }>();
  });
});

describe("the handlers are the document's operations", () => {
  it("refuses a resource's handlers with one missing or one the document lacks", () => {
    const extra: Pick<ResourceHandlers<"tags">, "list_annotation_config_tags"> = {
      list_annotation_config_tags: answer,
      // @ts-expect-error annotation configs' tags have no detach in the document
      remove_annotation_config_tags: answer,
    };
    // @ts-expect-error traces has one operation, list_traces, and it is missing
    const missing: ResourceHandlers<"traces"> = {};
    void [extra, missing];
    expectTypeOf<keyof Handlers>().toExtend<string>();
  });
});

// ApiRequest is generic only over operation ids.
// @ts-expect-error not an operation of the document
export type NoSuchOperation = ApiRequest<"no_such_operation">;
