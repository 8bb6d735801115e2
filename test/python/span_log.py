"""The SDK's spans.log (POST /v1/pandas_arrow): a frame of spans in OpenInference's flattened
columns, with an evals frame joined to some of them, then the uploads the server refuses.

argv: base URL, API key, a path to write the spans sent to (JSON), then a JSON object:
space_id, project, rows, bad_project (a project no refused upload may create), read_only_key.
Prints one JSON line: per call, the SDK's answer (status and body) or the exception's class and
message; the test reads the spans back through REST and compares them with the file.
"""
import json
import secrets
import sys
import time

import pandas as pd

from groups._common import Answers, client_on

base, key, sent_path = sys.argv[1:4]
ctx = json.loads(sys.argv[4])
client = client_on(base, key)
space, project, n = ctx["space_id"], ctx["project"], ctx["rows"]
out = Answers()
attempt = out.attempt

# Traces of five spans: a CHAIN root and four LLM children. Times in whole microseconds (as
# REST gives them back), starting ten minutes ago, one millisecond apart.
SPANS_PER_TRACE = 5
t0 = (time.time_ns() - 600 * 10**9) // 1000 * 1000
rows = []
for i in range(n):
    root = i % SPANS_PER_TRACE == 0
    if root:
        trace_id, root_id = secrets.token_hex(16), None
    span_id = secrets.token_hex(8)
    start = t0 + i * 1_000_000
    rows.append({
        "context.span_id": span_id,
        "context.trace_id": trace_id,
        "parent_id": None if root else root_id,
        "name": f"span-{i}",
        "span_kind": "CHAIN" if root else "LLM",
        # Integer nanoseconds, which the SDK sends as they are (it turns a datetime into a
        # float of seconds first, a microsecond off at times).
        "start_time": start,
        "end_time": start + (i % 7 + 1) * 1_000_000,
        "status_code": "ERROR" if i % 10 == 3 else "OK",
        "status_message": "boom" if i % 10 == 3 else "",
        "attributes.input.value": f"in {i}",
        "attributes.llm.token_count.total": i,
        "attributes.metadata": {"i": i, "even": i % 2 == 0},
        "attributes.llm.input_messages": None if root else [
            {"message.role": "user", "message.content": f"hi {i}"}],
        "events": [{"name": "retry", "timestamp": start + 1000, "attributes": {"n": i}}]
        if i % 100 == 0 else [],
    })
    if root:
        root_id = span_id
spans = pd.DataFrame(rows)
evals = pd.DataFrame({
    "context.span_id": [r["context.span_id"] for r in rows[::50]],
    "eval.quality.label": ["good"] * len(rows[::50]),
    "eval.quality.score": [0.5] * len(rows[::50]),
})


def log(frame, project_name=project, evals_frame=None, c=client, **kw):
    resp = c.spans.log(space_id=space, project_name=project_name, dataframe=frame,
                       evals_dataframe=evals_frame, **kw)
    return {"status": resp.status_code, "body": resp.json()}


attempt("log", lambda: log(spans, evals_frame=evals))
with open(sent_path, "w") as f:
    json.dump([{
        "span_id": r["context.span_id"], "trace_id": r["context.trace_id"],
        "parent_id": r["parent_id"], "name": r["name"], "kind": r["span_kind"],
        "start_ns": str(r["start_time"]), "end_ns": str(r["end_time"]),
        "status_code": r["status_code"], "status_message": r["status_message"],
        "i": i, "events": len(r["events"]),
    } for i, r in enumerate(rows)], f)

# Refused uploads, each to a project of its own that none of them may create.
small = spans.head(3).copy()
bad = ctx["bad_project"]
bad_id = small.copy()
bad_id.loc[1, "context.span_id"] = "not-a-span-id"
attempt("a row with a bad span id", lambda: log(bad_id, bad, validate=False))
attempt("no span id column", lambda: log(small.drop(columns=["context.span_id"]), bad,
                                          validate=False))
typed = small.copy()
typed["attributes.when"] = [pd.Timestamp("2026-01-01", tz="UTC")] * len(typed)
attempt("a column of an unsupported type", lambda: log(typed, bad))
attempt("read-only key", lambda: log(small, bad, c=client_on(base, ctx["read_only_key"])))
attempt("wrong key", lambda: log(small, bad, c=client_on(base, "ak-wrong")))

out.print()
