"""webhooks through client.webhooks: create (BEARER, HMAC_SHA256), get (id; name within an
organization), list (all; organization), update, test deliveries and the delivery log,
subscriptions on a prompt (create, get, list, delete), real deliveries of the prompt's new
version to a receiver on loopback (the HMAC one's signature verified), delete.

The receiver is this script's own `http.server` on 127.0.0.1: the stack under test lets
webhooks deliver to loopback (ARGUS_WEBHOOK_ALLOW_LOOPBACK)."""
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from _common import Run, default_org, default_space, val

from arize._generated import api_client as gen

received: list[dict] = []
lock = threading.Lock()


class Receiver(BaseHTTPRequestHandler):
    """A customer's endpoint: records every request (headers lower-cased, raw body), answers 200."""

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with lock:
            received.append({"path": self.path, "body": body,
                             "headers": {k.lower(): v for k, v in self.headers.items()}})
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):  # stdout carries the summary; stderr stays quiet
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{server.server_address[1]}"


def requests_to(path: str, event: str | None = None) -> list[dict]:
    """The requests received on `path` (with that payload `event`), oldest first."""
    with lock:
        got = [x for x in received if x["path"] == path]
    if event is None:
        return got
    out = []
    for x in got:
        try:
            if json.loads(x["body"]).get("event") == event:
                out.append(x)
        except ValueError:
            pass
    return out


def wait_for(paths: list[str], event: str, timeout: float = 20.0) -> dict[str, dict]:
    """The first request with `event` on each path, waiting up to `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = {p: requests_to(p, event) for p in paths}
        if all(got.values()):
            return {p: v[0] for p, v in got.items()}
        if time.monotonic() > deadline:
            missing = [p for p, v in got.items() if not v]
            raise TimeoutError(f"no {event} delivery on {missing} within {timeout}s "
                               f"(received: {[(x['path'], x['body'][:200]) for x in received]})")
        time.sleep(0.2)


def status_of(fn) -> object:
    """The status an SDK call fails with (the error itself if it has none), or "no error"."""
    try:
        fn()
    except Exception as err:  # noqa: BLE001
        return getattr(err, "status", None) or f"{type(err).__name__}: {err}"[:300]
    return "no error"


r = Run("webhooks")
c = r.client
wh = c.webhooks
org = default_org(c)
space = default_space(c)
name = r.name("py-hook")
hmac_name = r.name("py-hook-hmac")
token = f"Bearer tok-{r.suffix}"


def fields(x):
    return (x.organization_id, x.name, x.description, x.url, val(x.auth_type), x.timeout_ms)


w = r.op("create", lambda: wh.create(
    organization=org.name, name=name, url=f"{base}/bearer", description="written",
    auth_type="BEARER", auth_token=token, timeout_ms=5000, headers={"X-Team": "py"}))
h = r.op("create_hmac", lambda: wh.create(
    organization=org.id, name=hmac_name, url=f"{base}/hmac", auth_type="HMAC_SHA256"))
secret = h.signing_secret if h else None
if h:
    r.eq("create_hmac", "fields", fields(h),
         (org.id, hmac_name, "", f"{base}/hmac", "HMAC_SHA256", 30000))
    r.eq("create_hmac", "signing_secret", (secret or "").startswith("whsec_"), True)
    hint = h.signing_secret_hint or ""
    r.eq("create_hmac", "signing_secret_hint",
         (hint.startswith("whsec_"), bool(secret) and hint.endswith(secret[-4:]),
          bool(secret) and secret in hint), (True, True, False))

written = (org.id, name, "written", f"{base}/bearer", "BEARER", 5000)
if w:
    r.eq("create", "fields", fields(w), written)
    r.eq("create", "secrets", (w.signing_secret, w.signing_secret_hint), (None, None))
    got = r.op("get", lambda: wh.get(webhook=w.id))
    if got:
        r.eq("get", "fields", fields(got), written)
        r.eq("get", "id", got.id, w.id)
        r.eq("get", "signing_secret_hint", got.signing_secret_hint, None)
    if h:
        got_h = r.op("get_hmac", lambda: wh.get(webhook=h.id))
        if got_h:
            r.eq("get_hmac", "signing_secret_hint", got_h.signing_secret_hint,
                 h.signing_secret_hint)
            r.eq("get_hmac", "signing_secret", "signing_secret" in got_h.to_dict(), False)
    by_name = r.op("get_by_name", lambda: wh.get(webhook=name, organization=org.name))
    r.eq("get_by_name", "id", by_name and by_name.id, w.id)
    listed = r.op("list", lambda: wh.list(limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.webhooks if x.id == w.id], [w.id])
    by_org = r.op("list_by_org", lambda: wh.list(organization=org.name, name=r.suffix))
    if by_org:
        # Most recently created first.
        r.eq("list_by_org", "ids", [x.id for x in by_org.webhooks],
             [x.id for x in [h, w] if x])
        r.eq("list_by_org", "organizations", {x.organization_id for x in by_org.webhooks},
             {org.id})

    new_name = r.name("py-hook-renamed")
    upd = r.op("update", lambda: wh.update(
        webhook=name, organization=org.id, name=new_name, description="rewritten",
        timeout_ms=7000, headers={"X-Team": "ml", "X-Env": "test"}))
    rewritten = (org.id, new_name, "rewritten", f"{base}/bearer", "BEARER", 7000)
    if upd:
        r.eq("update", "fields", fields(upd), rewritten)
    got = r.op("get_after_update", lambda: wh.get(webhook=new_name, organization=org.name))
    if got:
        r.eq("get_after_update", "fields", fields(got), rewritten)

    # A test delivery: the endpoint's answer, the request it got, and the delivery log.
    before = len(requests_to("/bearer"))
    tested = r.op("test", lambda: wh.test(webhook=w.id))
    test_body = None
    if tested:
        r.eq("test", "outcome", (tested.status_code, tested.error_message), (200, None))
        sent = requests_to("/bearer")[before:]
        r.eq("test", "requests", len(sent), 1)
        if sent:
            hd = sent[0]["headers"]
            r.eq("test", "headers",
                 (hd.get("authorization"), hd.get("x-team"), hd.get("x-env"),
                  "x-arize-webhook-signature" in hd),
                 (token, "ml", "test", False))
            try:
                test_body = json.loads(sent[0]["body"])
            except ValueError:
                r.eq("test", "body", sent[0]["body"][:200].decode(errors="replace"), "JSON")
    attempts = r.op("list_delivery_attempts",
                    lambda: wh.list_delivery_attempts(webhook=new_name, organization=org.id))
    if attempts:
        a = attempts.delivery_attempts
        r.eq("list_delivery_attempts", "count", len(a), 1)
        if a:
            r.eq("list_delivery_attempts", "attempt",
                 (a[0].attempt_number, a[0].status_code, a[0].error_message,
                  isinstance(a[0].payload, dict), a[0].created_at is not None),
                 (1, 200, None, True, True))
            if test_body is not None:
                r.eq("list_delivery_attempts", "payload", a[0].payload, test_body)
                r.eq("list_delivery_attempts", "event_id", a[0].event_id,
                     test_body.get("event_id"))

    # Subscriptions on a prompt of the first space, for both webhooks.
    p = r.op("create_prompt", lambda: c.prompts.create(
        space=space.name, name=r.name("py-hook-prompt"), commit_message="first",
        input_variable_format="F_STRING", provider="OPEN_AI", model="gpt-4o",
        messages=[gen.LLMMessageRequest(role="USER", content="{question}")]))
    if p:
        def sub_fields(s):
            return (s.webhook_id, val(s.source_type), s.source_id, val(s.event))

        s = r.op("create_subscription", lambda: wh.create_subscription(
            webhook=new_name, organization=org.name, source_type="PROMPT", source_id=p.id,
            event="PROMPT_VERSION_CREATED"))
        if s:
            r.eq("create_subscription", "fields", sub_fields(s),
                 (w.id, "PROMPT", p.id, "PROMPT_VERSION_CREATED"))
        sh = h and r.op("create_subscription_hmac", lambda: wh.create_subscription(
            webhook=h.id, source_type="PROMPT", source_id=p.id,
            event="PROMPT_VERSION_CREATED"))
        if sh:
            r.eq("create_subscription_hmac", "fields", sub_fields(sh),
                 (h.id, "PROMPT", p.id, "PROMPT_VERSION_CREATED"))
        if s:
            gs = r.op("get_subscription", lambda: wh.get_subscription(subscription_id=s.id))
            if gs:
                r.eq("get_subscription", "fields", (gs.id,) + sub_fields(gs),
                     (s.id,) + sub_fields(s))
        subs = r.op("list_subscriptions", lambda: wh.list_subscriptions(
            source_type="PROMPT", source_id=p.id, limit=100))
        if subs:
            r.eq("list_subscriptions", "ids", sorted(x.id for x in subs.subscriptions),
                 sorted(x.id for x in [s, sh] if x))

        # A new version of the prompt is delivered to both webhooks.
        v2 = r.op("create_version", lambda: c.prompts.create_version(
            prompt=p.id, commit_message="second", input_variable_format="F_STRING",
            provider="OPEN_AI", model="gpt-4o-mini",
            messages=[gen.LLMMessageRequest(role="USER", content="{question}?")]))
        paths = ["/bearer"] + (["/hmac"] if sh else [])
        got = v2 and s and r.op("delivery", lambda: wait_for(paths, "prompt.version.created"))
        if got:
            for path, req in got.items():
                body = json.loads(req["body"])
                d = body.get("data") or {}
                r.eq("delivery", f"{path} payload",
                     (body.get("event_type"), d.get("prompt_id"), d.get("prompt_version_id"),
                      d.get("commit_message"), d.get("model"), d.get("space_id")),
                     ("PROMPT_VERSION_CREATED", p.id, v2.id, "second", "gpt-4o-mini", space.id))
                r.eq("delivery", f"{path} event headers",
                     (req["headers"].get("x-arize-webhook-event"),
                      req["headers"].get("x-arize-webhook-id")),
                     ("prompt.version.created", body.get("event_id")))
            hd = got["/bearer"]["headers"]
            r.eq("delivery", "/bearer headers",
                 (hd.get("authorization"), hd.get("x-team"), hd.get("x-env")),
                 (token, "ml", "test"))
            if "/hmac" in got and secret:
                req = got["/hmac"]
                ts = req["headers"].get("x-arize-webhook-timestamp") or ""
                want = "v1=" + hmac.new(secret.encode(), ts.encode() + b"." + req["body"],
                                        hashlib.sha256).hexdigest()
                r.eq("delivery", "signature",
                     req["headers"].get("x-arize-webhook-signature"), want)
                r.eq("delivery", "timestamp",
                     ts.isdigit() and abs(int(ts) - time.time()) < 300, True)
                r.eq("delivery", "/hmac authorization", req["headers"].get("authorization"),
                     None)

        if s:
            r.op("delete_subscription", lambda: wh.delete_subscription(subscription_id=s.id))
            r.ops.append("get_subscription_after_delete")
            r.eq("get_subscription_after_delete", "status",
                 status_of(lambda: wh.get_subscription(subscription_id=s.id)), 404)
        if sh:
            r.op("delete_subscription_hmac",
                 lambda: wh.delete_subscription(subscription_id=sh.id))
        left = r.op("list_subscriptions_after_delete", lambda: wh.list_subscriptions(
            source_type="PROMPT", source_id=p.id))
        if left is not None:
            r.eq("list_subscriptions_after_delete", "ids",
                 [x.id for x in left.subscriptions], [])
        r.op("delete_prompt", lambda: c.prompts.delete(prompt=p.id))

    r.op("delete", lambda: wh.delete(webhook=new_name, organization=org.name))
    # Gone: a get by id answers 404 (the SDK's NotFoundException), by name the SDK's
    # NotFoundError (it resolves names through the list); neither is a failure here.
    r.ops.append("get_after_delete")
    r.eq("get_after_delete", "status", status_of(lambda: wh.get(webhook=w.id)), 404)
    r.ops.append("get_by_name_after_delete")
    try:
        wh.get(webhook=new_name, organization=org.name)
        r.eq("get_by_name_after_delete", "error", "no error", "NotFoundError")
    except Exception as err:  # noqa: BLE001
        r.eq("get_by_name_after_delete", "error", type(err).__name__, "NotFoundError")
    after = r.op("list_after_delete", lambda: wh.list(organization=org.id, name=new_name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.webhooks], [])

if h:
    r.op("delete_hmac", lambda: wh.delete(webhook=h.id))
server.shutdown()
r.done()
