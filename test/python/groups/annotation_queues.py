"""annotation_queues through client.annotation_queues: create (with records), get (id, name),
list (space, name), update, records (add, list, assign, annotate, delete), delete."""
from _common import Run, default_space, project_named, recent_window, send_spans, val

from arize._generated import api_client as gen

r = Run("annotation_queues")
c = r.client
space = default_space(c)
aq = c.annotation_queues
me = [u for u in c.users.list(limit=100).users if val(u.status) == "ACTIVE"][0]
# Records must name spans the project has: real ones, sent over OTLP (the project is made then).
sent = send_spans(r, space.id, r.name("py-queue-project"), traces=1, spans_per_trace=3)
project = project_named(c, space.id, r.name("py-queue-project"))
span1, span2, span3 = sent["span_ids"]
window_start, window_end = recent_window()
verdict = c.annotation_configs.create_categorical(
    name=r.name("py-q-verdict"), space=space.id,
    values=[gen.CategoricalAnnotationValueRequest(label="good", score=1),
            gen.CategoricalAnnotationValueRequest(label="bad", score=0)])
notes = c.annotation_configs.create_freeform(name=r.name("py-q-notes"), space=space.id)


def spans(ids):
    return gen.AnnotationQueueSpanRecordInput(
        record_type="SPAN", project_id=project.id, start_time=window_start,
        end_time=window_end, span_ids=ids)


def configs(q):
    return [x.actual_instance.id for x in q.annotation_configs or []]


name = r.name("py-queue")
q = r.op("create", lambda: aq.create(
    name=name, space=space.name, annotation_config_ids=[verdict.id], annotator_emails=[me.email],
    instructions="Check every answer", record_sources=[spans([span1, span2])]))
if q:
    r.eq("create", "fields", (q.name, q.space_id, q.instructions, configs(q),
                              [a.email for a in q.annotators]),
         (name, space.id, "Check every answer", [verdict.id], [me.email]))
    got = r.op("get", lambda: aq.get(annotation_queue=q.id))
    if got:
        r.eq("get", "fields", (got.id, got.name, got.instructions, configs(got)),
             (q.id, name, "Check every answer", [verdict.id]))
    by_name = r.op("get_by_name", lambda: aq.get(annotation_queue=name, space=space.name))
    r.eq("get_by_name", "id", by_name and by_name.id, q.id)
    listed = r.op("list", lambda: aq.list(space=space.id, limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.annotation_queues if x.id == q.id], [q.id])
    filtered = r.op("list_by_name", lambda: aq.list(space=space.name, name=name))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.annotation_queues], [q.id])

    new_name = r.name("py-queue-renamed")
    upd = r.op("update", lambda: aq.update(
        annotation_queue=name, space=space.id, name=new_name, instructions="Be strict",
        annotation_config_ids=[verdict.id, notes.id]))
    if upd:
        r.eq("update", "fields", (upd.id, upd.name, upd.instructions, configs(upd)),
             (q.id, new_name, "Be strict", [verdict.id, notes.id]))
    got = r.op("get_after_update", lambda: aq.get(annotation_queue=new_name, space=space.id))
    if got:
        r.eq("get_after_update", "fields", (got.id, got.instructions, configs(got),
                                            [a.email for a in got.annotators]),
             (q.id, "Be strict", [verdict.id, notes.id], [me.email]))

    # Records.
    added = r.op("add_records", lambda: aq.add_records(
        annotation_queue=new_name, space=space.name, record_sources=[spans([span3])]))
    if added:
        r.eq("add_records", "count", len(added.record_sources or []), 1)
    records = r.op("list_records", lambda: aq.list_records(annotation_queue=q.id, limit=100))
    if records:
        span_ids = sorted(x.data.get("context.span_id") for x in records.records)
        r.eq("list_records", "span_ids", span_ids, sorted([span1, span2, span3]))
        r.eq("list_records", "project", {x.data.get("project_id") for x in records.records},
             {project.id})
        first = records.records[0]
        assigned = r.op("assign_record", lambda: aq.assign_record(
            annotation_queue=q.id, record_id=first.id, assigned_user_emails=[me.email]))
        if assigned:
            r.eq("assign_record", "emails",
                 [a.user.email for a in assigned.assigned_users or []], [me.email])
        annotated = r.op("annotate_record", lambda: aq.annotate_record(
            annotation_queue=new_name, space=space.id, record_id=first.id,
            annotations=[gen.AnnotationInput(name=verdict.name, label="good", score=1),
                         gen.AnnotationInput(name=notes.name, text="well argued")]))
        if annotated:
            got = {a.name: (a.label, a.score, a.text) for a in annotated.annotations or []}
            r.eq("annotate_record", "annotations", got,
                 {verdict.name: ("good", 1, None), notes.name: (None, None, "well argued")})
        again = r.op("list_records_after_annotate",
                     lambda: aq.list_records(annotation_queue=q.id, limit=100))
        if again:
            mine = [x for x in again.records if x.id == first.id]
            if mine:
                got = {a.name: (a.label, a.score, a.text) for a in mine[0].annotations or []}
                r.eq("list_records_after_annotate", "annotations", got,
                     {verdict.name: ("good", 1, None), notes.name: (None, None, "well argued")})
        r.op("delete_records", lambda: aq.delete_records(annotation_queue=q.id,
                                                         record_ids=[first.id]))
        left = r.op("list_records_after_delete",
                    lambda: aq.list_records(annotation_queue=q.id, limit=100))
        if left:
            r.eq("list_records_after_delete", "ids",
                 sorted(x.id for x in left.records), sorted(x.id for x in records.records[1:]))

    r.op("delete", lambda: aq.delete(annotation_queue=new_name, space=space.name))
    after = r.op("list_after_delete", lambda: aq.list(space=space.id, name=new_name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.annotation_queues], [])

# A RANDOM queue created with TRACE records.
traces = gen.AnnotationQueueTraceRecordInput(
    record_type="TRACE", project_id=project.id, start_time=window_start,
    end_time=window_end, trace_ids=sent["trace_ids"])
rq = r.op("create_random_with_traces", lambda: aq.create(
    name=r.name("py-queue-random"), space=space.id, annotation_config_ids=[notes.id],
    annotator_emails=[me.email], assignment_method="RANDOM", record_sources=[traces]))
if rq:
    recs = r.op("list_trace_records", lambda: aq.list_records(annotation_queue=rq.id))
    if recs:
        r.eq("list_trace_records", "records",
             [(val(x.source_type), val(x.granularity), x.data.get("context.trace_id"))
              for x in recs.records],
             [("SPANS", "TRACE", sent["trace_ids"][0])])
    r.op("delete_random", lambda: aq.delete(annotation_queue=rq.id))

# A span id the project does not have is refused (422), and nothing of the request is added.
uq = r.op("create_unknown_span_setup", lambda: aq.create(
    name=r.name("py-queue-unknown"), space=space.id, annotation_config_ids=[notes.id],
    annotator_emails=[me.email]))
if uq:
    def add_unknown():
        try:
            aq.add_records(annotation_queue=uq.id,
                           record_sources=[spans([span1, "0123456789abcdef"])])
        except Exception as err:  # noqa: BLE001
            return getattr(err, "status", repr(err))
        return "no error"
    r.ops.append("add_unknown_span")
    r.eq("add_unknown_span", "status", add_unknown(), 422)
    left = r.op("list_unknown_span_records", lambda: aq.list_records(annotation_queue=uq.id))
    if left is not None:
        r.eq("list_unknown_span_records", "records", [x.id for x in left.records], [])
    r.op("delete_unknown", lambda: aq.delete(annotation_queue=uq.id))
r.done()
