"""audit_logs through client.audit_logs: list, by time window, user, operation type and names,
paging with the cursor; the entries of what this script wrote."""
import json
import time
from datetime import datetime, timedelta, timezone

from _common import Run, default_org, val

r = Run("audit_logs")
c = r.client
org = default_org(c)
start = datetime.now(timezone.utc) - timedelta(seconds=5)
name = r.name("py-audited")
space = c.spaces.create(name=name, organization_id=org.id, description="audited")
c.spaces.update(space=space.id, description="audited again")
me = c.api_keys.list(limit=1).api_keys[0].actual_instance.created_by_user_id


def mine(logs):
    return [e for e in logs if e.variables and name in e.variables]


found = []
for _ in range(50):
    page = r.op("list_by_names", lambda: c.audit_logs.list(
        operation_names=["SpaceCreated", "SpaceUpdated"], start_time=start, limit=100))
    found = mine(page.logs) if page else []
    if page is None or len(found) == 2:
        break
    time.sleep(0.2)
r.eq("list_by_names", "operations", sorted(e.operation_name for e in found),
     ["SpaceCreated", "SpaceUpdated"])
created = [e for e in found if e.operation_name == "SpaceCreated"]
if created:
    e = created[0]
    r.eq("list_by_names", "entry", (e.user_id, val(e.operation_type)), (me, "MUTATION"))
    r.eq("list_by_names", "variables", json.loads(e.variables).get("name"), name)

listed = r.op("list", lambda: c.audit_logs.list(limit=100))
if listed:
    r.eq("list", "contains", len(mine(listed.logs)) >= 2, True)
by_user = r.op("list_by_user", lambda: c.audit_logs.list(user_id=me, start_time=start, limit=100))
if by_user:
    r.eq("list_by_user", "users", {e.user_id for e in by_user.logs}, {me})
    r.eq("list_by_user", "mine", len(mine(by_user.logs)), 2)
mutations = r.op("list_by_type", lambda: c.audit_logs.list(operation_type="MUTATION",
                                                           start_time=start, limit=100))
if mutations:
    r.eq("list_by_type", "types", {val(e.operation_type) for e in mutations.logs}, {"MUTATION"})
# A naive datetime (no offset, as `datetime.utcnow()` makes) is read as UTC: the SDK formats
# query instants with `%z`, which leaves a naive one without an offset.
naive = r.op("list_naive_window", lambda: c.audit_logs.list(
    operation_names=["SpaceCreated"], start_time=start.replace(tzinfo=None),
    end_time=(datetime.now(timezone.utc) + timedelta(minutes=1)).replace(tzinfo=None), limit=100))
if naive:
    r.eq("list_naive_window", "mine", [e.operation_name for e in mine(naive.logs)], ["SpaceCreated"])
before = r.op("list_naive_before", lambda: c.audit_logs.list(
    end_time=start.replace(tzinfo=None) - timedelta(hours=1), limit=100))
if before:
    r.eq("list_naive_before", "mine", mine(before.logs), [])
queries = r.op("list_queries", lambda: c.audit_logs.list(operation_type="QUERY", limit=100))
if queries:
    r.eq("list_queries", "logs", queries.logs, [])
window = r.op("list_window", lambda: c.audit_logs.list(
    start_time=start - timedelta(days=1), end_time=start - timedelta(hours=1), limit=100))
if window:
    r.eq("list_window", "mine", mine(window.logs), [])
first = r.op("list_page", lambda: c.audit_logs.list(limit=1))
if first:
    r.eq("list_page", "count", len(first.logs), 1)
    cursor = first.pagination.next_cursor if first.pagination else None
    r.eq("list_page", "has_more", bool(first.pagination and first.pagination.has_more), True)
    second = r.op("list_next_page", lambda: c.audit_logs.list(limit=1, cursor=cursor))
    if second:
        r.eq("list_next_page", "distinct", second.logs[0].id != first.logs[0].id, True)
c.spaces.delete(space=space.id)
r.done()
