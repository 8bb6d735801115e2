"""spans through arize-otel and client.spans / client.traces: spans recorded with the
OpenTelemetry tracer of `arize.otel.register` over OTLP/gRPC (its default transport, to the
gateway's OTLP/gRPC address, argv[3]) and over OTLP/HTTP (`<base>/v1`), then listed (spans,
a filter, pages, traces), annotated and deleted through the SDK's high-level clients."""
from datetime import datetime, timedelta, timezone

from arize._generated import api_client as gen
from arize.otel import Transport, register

from _common import Run, default_space, val

r = Run("spans")
c = r.client
grpc_address = r.args[0]  # 127.0.0.1:<port>
space = default_space(c)
verdict = c.annotation_configs.create_categorical(
    name=f"py_span_verdict_{r.suffix}", space=space.id,
    values=[gen.CategoricalAnnotationValueRequest(label="good", score=1),
            gen.CategoricalAnnotationValueRequest(label="bad", score=0)])


def fmt_span(i: int) -> str:
    return format(i, "016x")


def record(project_name: str, **how) -> dict:
    """One trace (an AGENT root, an LLM child with an event, a failed TOOL child), flushed."""
    from opentelemetry.trace import Status, StatusCode, format_span_id, format_trace_id

    provider = register(space_id=space.id, api_key=r.key, project_name=project_name, batch=False,
                        set_global_tracer_provider=False, verbose=False, **how)
    tracer = provider.get_tracer("py-spans")
    ids: dict = {}
    with tracer.start_as_current_span(
            "agent", attributes={"openinference.span.kind": "AGENT",
                                 "input.value": "what is the weather?"}) as root:
        ids["trace"] = format_trace_id(root.get_span_context().trace_id)
        ids["agent"] = format_span_id(root.get_span_context().span_id)
        with tracer.start_as_current_span(
                "llm", attributes={"openinference.span.kind": "LLM",
                                   "llm.model_name": "gpt-4o",
                                   "llm.token_count.total": 42}) as llm:
            llm.add_event("first token", {"n": 1})
            ids["llm"] = format_span_id(llm.get_span_context().span_id)
        with tracer.start_as_current_span(
                "tool", attributes={"openinference.span.kind": "TOOL"}) as tool:
            tool.set_status(Status(StatusCode.ERROR, "no network"))
            ids["tool"] = format_span_id(tool.get_span_context().span_id)
    ok = provider.force_flush()
    provider.shutdown()
    ids["flushed"] = ok
    return ids


now = datetime.now(timezone.utc)
start, end = now - timedelta(hours=1), now + timedelta(minutes=5)

grpc_endpoint = f"http://{grpc_address}"
for transport, how in [
    ("grpc", {"endpoint": grpc_endpoint}),
    ("http", {"endpoint": f"{r.base}/v1", "transport": Transport.HTTP}),
]:
    project = r.name(f"py-spans-{transport}")
    ids = r.op(f"register_{transport}", lambda: record(project, **how))
    if not ids:
        continue
    r.eq(f"register_{transport}", "flushed", ids["flushed"], True)

    listed = r.op(f"list_{transport}", lambda: c.spans.list(
        project=project, space=space.id, start_time=start, end_time=end, limit=10))
    if listed:
        spans = listed.spans or []
        # Newest first: the tool started last, the agent first.
        r.eq(f"list_{transport}", "names", [s.name for s in spans], ["tool", "llm", "agent"])
        by = {s.name: s for s in spans}
        if len(by) == 3:
            r.eq(f"list_{transport}", "ids",
                 {n: (by[n].context.trace_id, by[n].context.span_id) for n in by},
                 {n: (ids["trace"], ids[n]) for n in ("agent", "llm", "tool")})
            r.eq(f"list_{transport}", "parents",
                 {n: by[n].parent_id for n in by},
                 {"agent": None, "llm": ids["agent"], "tool": ids["agent"]})
            r.eq(f"list_{transport}", "kinds", {n: val(by[n].kind) for n in by},
                 {"agent": "AGENT", "llm": "LLM", "tool": "TOOL"})
            r.eq(f"list_{transport}", "status",
                 (val(by["tool"].status_code), by["tool"].status_message,
                  val(by["llm"].status_code)),
                 ("ERROR", "no network", "UNSET"))
            attrs = by["llm"].attributes or {}
            r.eq(f"list_{transport}", "model",
                 attrs.get("llm.model_name",
                           (attrs.get("llm") or {}).get("model_name")), "gpt-4o")
            r.eq(f"list_{transport}", "events",
                 [(e.name, (e.attributes or {}).get("n")) for e in by["llm"].events or []],
                 [("first token", 1)])

    only_llm = r.op(f"list_filter_{transport}", lambda: c.spans.list(
        project=project, space=space.id, start_time=start, end_time=end,
        filter="span_kind = 'LLM'"))
    if only_llm:
        r.eq(f"list_filter_{transport}", "ids",
             [s.context.span_id for s in only_llm.spans or []], [ids["llm"]])

    page = r.op(f"list_page_{transport}", lambda: c.spans.list(
        project=project, space=space.id, start_time=start, end_time=end, limit=2))
    if page:
        r.eq(f"list_page_{transport}", "first", [s.name for s in page.spans or []],
             ["tool", "llm"])
        r.eq(f"list_page_{transport}", "has_more", page.pagination.has_more, True)
        rest = r.op(f"list_next_page_{transport}", lambda: c.spans.list(
            project=project, space=space.id, start_time=start, end_time=end, limit=2,
            cursor=page.pagination.next_cursor))
        if rest:
            r.eq(f"list_next_page_{transport}", "rest", [s.name for s in rest.spans or []],
                 ["agent"])
            r.eq(f"list_next_page_{transport}", "has_more", rest.pagination.has_more, False)

    traces = r.op(f"traces_list_{transport}", lambda: c.traces.list(
        project=project, space=space.id, start_time=start, end_time=end))
    if traces:
        r.eq(f"traces_list_{transport}", "traces",
             [(t.trace_id, t.root_span_id, sorted(s.name for s in t.spans or []))
              for t in traces.traces or []],
             [(ids["trace"], ids["agent"], ["agent", "llm", "tool"])])

    r.op(f"annotate_{transport}", lambda: c.spans.annotate(
        project=project, space=space.id,
        annotations=[gen.AnnotateRecordInput(
            record_id=ids["llm"],
            values=[gen.AnnotationInput(name=verdict.name, label="good", score=1)])]))
    annotated = r.op(f"list_annotated_{transport}", lambda: c.spans.list(
        project=project, space=space.id, start_time=start, end_time=end,
        filter=f"annotation.{verdict.name}.label = 'good'"))
    if annotated:
        got = [(s.context.span_id, [(a.name, a.label, a.score) for a in s.annotations or []])
               for s in annotated.spans or []]
        r.eq(f"list_annotated_{transport}", "annotations", got,
             [(ids["llm"], [(verdict.name, "good", 1)])])

    deleted = r.op(f"delete_{transport}", lambda: c.spans.delete(
        project=project, space=space.id, span_ids=[ids["tool"], fmt_span(7)]))
    if deleted:
        r.eq(f"delete_{transport}", "result",
             (deleted.completed, deleted.deleted_span_ids, deleted.not_deleted_span_ids),
             (True, [ids["tool"]], [fmt_span(7)]))
    left = r.op(f"list_after_delete_{transport}", lambda: c.spans.list(
        project=project, space=space.id, start_time=start, end_time=end))
    if left:
        r.eq(f"list_after_delete_{transport}", "names",
             [s.name for s in left.spans or []], ["llm", "agent"])
r.done()
