"""The SDK's span updates over Arrow Flight, without force_http: spans.update_evaluations
(also with force_http: POST /v1/pandas_arrow), spans.update_annotations and
spans.update_metadata on spans ingested over OTLP, and the refusals the client reports; then
spans.export_to_df and export_to_parquet (Flight GetFlightInfo + DoGet) of the same spans.

argv: base URL, API key, Flight address (host:port), then a JSON object: space_id, project,
span_ids (of the project), unmatched (a span id of no span), unknown_project, config (an
annotation config of the space), read_only_key (a key that may only read the space). Prints one JSON line: per call, the SDK's answer or the
exception's class and message; the test reads the spans back through REST and compares.
"""
import json
import os
import sys
from datetime import datetime, timedelta, timezone

import pandas as pd

from groups._common import Answers, client_on

base, key, flight = sys.argv[1:4]
ctx = json.loads(sys.argv[4])
client = client_on(base, key, flight)

space, project, ids = ctx["space_id"], ctx["project"], ctx["span_ids"]
out = Answers()
attempt = out.attempt

# Span i: correctness on every span, tone on even ones only; one row names no span.
evals = pd.DataFrame({
    "context.span_id": ids + [ctx["unmatched"]],
    "eval.correctness.label": [f"label {i}" for i in range(len(ids) + 1)],
    "eval.correctness.score": [i / 10 for i in range(len(ids) + 1)],
    "eval.correctness.explanation": [f"because {i}" for i in range(len(ids) + 1)],
    "eval.tone.label": [("calm" if i % 2 == 0 else None) for i in range(len(ids) + 1)],
})
attempt("update_evaluations", lambda: client.spans.update_evaluations(
    space_id=space, project_name=project, dataframe=evals))

annotations = pd.DataFrame({
    "context.span_id": ids[:3] + [ctx["unmatched"]],
    f"annotation.{ctx['config']}.label": ["good", "bad", None, "good"],
    f"annotation.{ctx['config']}.score": [1.0, 0.0, 0.5, 1.0],
    f"annotation.{ctx['config']}.text": ["fine", None, "meh", "x"],
    "annotation.notes": ["a note", None, None, None],
})
attempt("update_annotations", lambda: client.spans.update_annotations(
    space_id=space, project_name=project, dataframe=annotations))

# Fields as columns on spans 0-1 (and an id of no span), then a patch document merged in.
attempt("update_metadata", lambda: client.spans.update_metadata(
    space_id=space, project_name=project, dataframe=pd.DataFrame({
        "context.span_id": ids[:2] + [ctx["unmatched"]],
        "attributes.metadata.tag": ["important", "standard", "x"],
        "attributes.metadata.n": [1, 2, 3],
    })))
attempt("update_metadata again", lambda: client.spans.update_metadata(
    space_id=space, project_name=project, dataframe=pd.DataFrame({
        "context.span_id": ids[:1],
        "patch_document": [{"tag": None, "nested": {"b": 2}}],
    })))

attempt("unknown project", lambda: client.spans.update_evaluations(
    space_id=space, project_name=ctx["unknown_project"], dataframe=evals))
# The SDK's own validation would stop a frame without span ids: validate=False sends it.
attempt("no span id column", lambda: client.spans.update_evaluations(
    space_id=space, project_name=project, validate=False,
    dataframe=evals.drop(columns=["context.span_id"])))
attempt("unknown annotation config", lambda: client.spans.update_annotations(
    space_id=space, project_name=project,
    dataframe=pd.DataFrame({"context.span_id": ids[:1], "annotation.nosuchconfig.label": ["x"]})))

# With force_http: POST /v1/pandas_arrow, the same write.
def over_http(project_name, frame):
    resp = client.spans.update_evaluations(space_id=space, project_name=project_name,
                                           dataframe=frame, force_http=True)
    return {"status": resp.status_code, "body": resp.json()}


attempt("update_evaluations over HTTP", lambda: over_http(project, pd.DataFrame({
    "context.span_id": ids[:2] + [ctx["unmatched"]],
    "eval.http_eval.label": ["h0", "h1", "hx"],
    "eval.http_eval.score": [0.25, None, 1.0],
})))
attempt("unknown project over HTTP", lambda: over_http(ctx["unknown_project"], pd.DataFrame({
    "context.span_id": ids[:1], "eval.refused.label": ["x"]})))

# Refused as a whole: the first row's evaluation is not written either.
attempt("a row without span id", lambda: client.spans.update_evaluations(
    space_id=space, project_name=project, validate=False,
    dataframe=pd.DataFrame({"context.span_id": [ids[0], None], "eval.refused.label": ["x", "y"]})))
reader = client_on(base, ctx["read_only_key"], flight)
attempt("read-only key", lambda: reader.spans.update_evaluations(
    space_id=space, project_name=project,
    dataframe=pd.DataFrame({"context.span_id": ids[:1], "eval.refused.label": ["x"]})))
attempt("wrong key", lambda: client_on(base, "ak-wrong", flight).spans.update_evaluations(
    space_id=space, project_name=project,
    dataframe=pd.DataFrame({"context.span_id": ids[:1], "eval.refused.label": ["x"]})))

# The export, after the writes above: the test compares it with POST /v2/spans.
now = datetime.now(timezone.utc)


def export(project_name, start, end, **kw):
    df = client.spans.export_to_df(space_id=space, project_name=project_name, start_time=start,
                                   end_time=end, **kw)
    return {"rows": len(df), "columns": list(df.columns),
            "records": json.loads(df.to_json(orient="records", date_format="iso",
                                             date_unit="us"))}


hour = timedelta(hours=1)
attempt("export_to_df", lambda: export(project, now - hour, now + hour))
attempt("export_to_df filtered", lambda: export(project, now - hour, now + hour,
                                                where="name = 'root-0'"))
attempt("export_to_df projected", lambda: export(project, now - hour, now + hour,
                                                 columns=["context.span_id", "name"]))
attempt("export_to_df sampled", lambda: export(project, now - hour, now + hour,
                                               columns=["context.span_id", "context.trace_id"],
                                               sample_rate=0.5))


def export_parquet():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "spans.parquet")
        client.spans.export_to_parquet(path=path, space_id=space, project_name=project,
                                       start_time=now - hour, end_time=now + hour)
        df = pd.read_parquet(path)
        return {"rows": len(df), "span_ids": sorted(df["context.span_id"].tolist())}


attempt("export_to_parquet", export_parquet)
attempt("export_to_df empty window", lambda: export(project, now - 3 * hour, now - 2 * hour))
attempt("export_to_df unknown project",
        lambda: export(ctx["unknown_project"], now - hour, now + hour))
attempt("export_to_df bad filter", lambda: export(project, now - hour, now + hour,
                                                  where="name = = 'x'"))

out.print()
