-- Sessions of spans (`session.id`, as OpenInference writes it): evaluation tasks of the
-- SESSION granularity find a session's traces, and its newest span, through this.
create index spans_sessions on spans (project_id, (attributes ->> 'session.id'), start_time)
  where attributes ? 'session.id';
-- A session's walk, newest first, reads only the spans that carry one.
create index spans_session_page on spans (project_id, start_time desc, trace_id desc, span_id desc)
  where attributes ? 'session.id';
