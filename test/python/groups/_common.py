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
        url = urlparse(self.base)
        return ArizeClient(
            api_key=key, api_host=url.hostname, api_scheme=url.scheme, api_port=url.port
        )

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


def default_space(client: Any) -> Any:
    """The stack's seeded space, found by name as users do."""
    return client.spaces.get(space="Default Space")


def default_org(client: Any) -> Any:
    """The stack's seeded organization, found by name as users do."""
    return client.organizations.get(organization="Default Organization")
