"""Shared by the group scripts: a client on the stack, and a record of every operation.

Each script drives one group through the SDK's own high-level client (arize/<group>/client.py)
and prints one JSON summary as its last line: the operations that ran, the exceptions they
raised and the values read back that differ from what was written.
"""
import json
import os
import sys
import traceback
import uuid
from typing import Any, Callable
from urllib.parse import urlparse

os.environ.setdefault("DISABLE_PRERELEASE_WARNING", "true")

from arize import ArizeClient  # noqa: E402


def client_on(base: str, key: str, flight: str | None = None) -> ArizeClient:
    """An SDK client on the stack at `base` with this key; with `flight` (host:port), its Flight
    calls go there over plain gRPC (the SDK's default is TLS to Arize's own host)."""
    url = urlparse(base)
    to_flight: dict[str, Any] = {}
    if flight:
        host, port = flight.rsplit(":", 1)
        to_flight = {"flight_host": host, "flight_port": int(port), "flight_scheme": "grpc"}
    return ArizeClient(api_key=key, api_host=url.hostname, api_scheme=url.scheme,
                       api_port=url.port, **to_flight)


class Answers(dict):
    """Per named SDK call, its answer or the exception's class and message: what the scripts
    outside the groups print for their e2e test to compare with what the server holds."""

    def attempt(self, name: str, call: Callable[[], Any]) -> None:
        try:
            self[name] = {"type": "ok", "answer": call()}
        except Exception as e:  # noqa: BLE001 - the client's error is what is compared
            self[name] = {"type": type(e).__name__, "message": str(e)}

    def print(self) -> None:
        print(json.dumps(self, default=str))


class Run:
    def __init__(self, group: str) -> None:
        self.group = group
        base, self.key = sys.argv[1:3]
        self.args = sys.argv[3:]
        self.base = base
        self.client = self.client_with(self.key)
        self.suffix = uuid.uuid4().hex[:8]
        self.ops: list[str] = []
        self.exceptions: list[dict[str, str]] = []
        self.mismatches: list[dict[str, Any]] = []

    def client_with(self, key: str) -> ArizeClient:
        """An SDK client on the stack under test, with this key."""
        return client_on(self.base, key)

    def name(self, prefix: str) -> str:
        """A name unique to this run (the names resolve through list calls)."""
        return f"{prefix}-{self.suffix}"

    def op(self, op: str, fn: Callable[[], Any]) -> Any:
        """Runs one SDK call; an exception is recorded (and None returned), not raised."""
        self.ops.append(op)
        try:
            return fn()
        except Exception as err:  # noqa: BLE001
            self.exceptions.append(
                {"op": op, "error": _describe(err),
                 "trace": traceback.format_exc()[-1500:]}
            )
            return None

    def refused(self, op: str, fn: Callable[[], Any], status: int, says: str) -> None:
        """Runs one SDK call the public API documents as refused: it must raise the API's error
        with `status` and a Problem body whose detail contains `says`; anything else is a
        mismatch (a success included)."""
        self.ops.append(op)
        try:
            got = fn()
        except Exception as err:  # noqa: BLE001
            body = getattr(err, "body", None) or ""
            self.eq(op, "status", getattr(err, "status", None), status)
            try:
                problem = json.loads(body)
            except ValueError:
                problem = {}
            self.eq(op, "problem.status", problem.get("status"), status)
            self.eq(op, "detail says", says in str(problem.get("detail", "")), True)
            return
        self.mismatches.append(
            {"op": op, "field": "refused", "got": _plain(got), "want": f"error {status}"})

    def eq(self, op: str, field: str, got: Any, want: Any) -> None:
        """Records a value read back that differs from the one written."""
        if got != want:
            self.mismatches.append(
                {"op": op, "field": field, "got": _plain(got), "want": _plain(want)}
            )

    def done(self) -> None:
        print(
            json.dumps(
                {"group": self.group, "ops": self.ops, "exceptions": self.exceptions,
                 "mismatches": self.mismatches}
            )
        )


def _describe(err: Exception) -> str:
    """An exception, with an API error's status and body (not its headers)."""
    status = getattr(err, "status", None)
    if status is not None:
        return f"{type(err).__name__}: {status} {getattr(err, 'body', '')}"[:2000]
    return f"{type(err).__name__}: {err}"[:2000]


def _plain(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "value") and not isinstance(value, (str, int, float, bool)):
        return value.value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return repr(value)


def val(x: Any) -> Any:
    """An enum's value, or the value itself."""
    return getattr(x, "value", x)


def member(client: Any) -> Any:
    """A fresh user with the predefined MEMBER account role (for membership operations)."""
    from arize.users.types import PredefinedUserRole

    return client.users.create(
        name="py member", email=f"py-{uuid.uuid4()}@example.com",
        role=PredefinedUserRole(name="MEMBER"), invite_mode="NONE",
    )


def send_spans(r: "Run", space_id: str, project_name: str, traces: int = 1,
               spans_per_trace: int = 2) -> dict[str, list[str]]:
    """Spans made by the OpenTelemetry SDK, exported over OTLP/HTTP (protobuf) to the stack's
    `/v1/traces` with the admin's key, one at a time (SimpleSpanProcessor). Returns their hex
    ids: `trace_ids`, `root_span_ids` (one per trace) and `span_ids` (root first in each trace).
    Raises when an export fails; the project is created on first use."""
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult

    failed: list[Any] = []

    class Checked(OTLPSpanExporter):
        def export(self, spans):  # type: ignore[no-untyped-def]
            result = super().export(spans)
            if result != SpanExportResult.SUCCESS:
                failed.append(result)
            return result

    exporter = Checked(endpoint=f"{r.base}/v1/traces",
                       headers={"authorization": r.key, "arize-space-id": space_id})
    provider = TracerProvider(resource=Resource.create(
        {"openinference.project.name": project_name, "service.name": "argus-py"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("argus-py")
    ids: dict[str, list[str]] = {"trace_ids": [], "root_span_ids": [], "span_ids": []}
    for t in range(traces):
        with tracer.start_as_current_span(
                f"root-{t}", attributes={"openinference.span.kind": "CHAIN"}) as root:
            ctx = root.get_span_context()
            ids["trace_ids"].append(trace.format_trace_id(ctx.trace_id))
            ids["root_span_ids"].append(trace.format_span_id(ctx.span_id))
            ids["span_ids"].append(trace.format_span_id(ctx.span_id))
            for s in range(1, spans_per_trace):
                with tracer.start_as_current_span(
                        f"child-{t}-{s}", attributes={"openinference.span.kind": "LLM"}) as child:
                    ids["span_ids"].append(trace.format_span_id(child.get_span_context().span_id))
    provider.force_flush()
    provider.shutdown()
    if failed:
        raise RuntimeError(f"OTLP/HTTP export to {r.base}/v1/traces failed: {failed}")
    return ids


def recent_window() -> tuple[str, str]:
    """An RFC 3339 window around now (an hour either side) that holds spans just sent."""
    from datetime import datetime, timedelta, timezone

    now = datetime.now(timezone.utc)
    fmt = "%Y-%m-%dT%H:%M:%SZ"
    return ((now - timedelta(hours=1)).strftime(fmt), (now + timedelta(hours=1)).strftime(fmt))


def project_named(client: Any, space_id: str, name: str) -> Any:
    """The project called `name` in the space (made by OTLP ingestion on first use)."""
    return client.projects.get(project=name, space=space_id)


def default_space(client: Any) -> Any:
    """The stack's seeded space, found by name as users do."""
    return client.spaces.get(space="Default Space")


def default_org(client: Any) -> Any:
    """The stack's seeded organization, found by name as users do."""
    return client.organizations.get(organization="Default Organization")


def evaluator_integration(client: Any, name: str) -> str:
    """An EVALUATOR integration (the remote endpoint a REMOTE evaluator names), through the
    generated IntegrationsApi: SDK 8.61.0's integrations client creates LLM and AGENT only."""
    from arize._generated import api_client as gen

    api = gen.IntegrationsApi(client.projects._api.api_client)
    made = api.create_integration(gen.CreateIntegrationRequest(gen.CreateEvaluatorIntegrationRequest(
        type="EVALUATOR", name=name, config=gen.CreateEvaluatorIntegrationConfigInput(
            endpoint="https://eval.example.com/evaluate", input_schema={"type": "object"}))))
    return made.actual_instance.id
