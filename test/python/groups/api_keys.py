"""api_keys through client.api_keys: create (user, service), list (type, status, space, user),
refresh, revoke; each key created is used through a client of its own."""
from datetime import datetime, timedelta, timezone

from _common import Run, default_org, default_space, val

from arize._generated import api_client as gen
from arize.api_keys.types import OrgBinding, SpaceBinding

r = Run("api_keys")
c = r.client
org = default_org(c)
space = default_space(c)
expires = (datetime.now(timezone.utc) + timedelta(days=30)).replace(microsecond=0)


def keys(listed):
    """The listed keys (a list answers oneOf wrappers: USER or SERVICE)."""
    return [x.actual_instance for x in listed.api_keys]


def _rejected(client) -> bool:
    try:
        client.spaces.list()
    except Exception as err:  # noqa: BLE001
        return getattr(err, "status", None) == 401
    return False


def works(key: str) -> bool:
    return r.client_with(key).spaces.list().spaces is not None


k = r.op("create", lambda: c.api_keys.create(
    name=r.name("py-user-key"), description="written", expires_at=expires))
if k:
    r.eq("create", "name", k.name, r.name("py-user-key"))
    r.eq("create", "description", k.description, "written")
    r.eq("create", "key_type", val(k.key_type), "USER")
    r.eq("create", "status", val(k.status), "ACTIVE")
    r.eq("create", "expires_at", k.expires_at, expires)
    r.eq("create", "usable", r.op("use_created", lambda: works(k.key)), True)
    listed = r.op("list_user_keys", lambda: c.api_keys.list(key_type="USER", status="ACTIVE",
                                                             limit=100))
    if listed:
        mine = [x for x in keys(listed) if x.id == k.id]
        r.eq("list_user_keys", "ids", [x.id for x in mine], [k.id])
        if mine:
            r.eq("list_user_keys", "name", mine[0].name, k.name)
            r.eq("list_user_keys", "description", mine[0].description, "written")
            r.eq("list_user_keys", "expires_at", mine[0].expires_at, expires)
            r.eq("list_user_keys", "redacted_key", mine[0].redacted_key, k.redacted_key)

    new_expiry = expires - timedelta(days=1)  # a refresh may not extend the expiry
    refreshed = r.op("refresh", lambda: c.api_keys.refresh(
        api_key_id=k.id, expires_at=new_expiry, grace_period_seconds=0))
    if refreshed:
        r.eq("refresh", "name", refreshed.name, k.name)
        r.eq("refresh", "description", refreshed.description, "written")
        r.eq("refresh", "key_type", val(refreshed.key_type), "USER")
        r.eq("refresh", "expires_at", refreshed.expires_at, new_expiry)
        # Argus keeps the key's id and replaces its secret (documented on refresh_api_key).
        r.eq("refresh", "same_id", refreshed.id, k.id)
        r.eq("refresh", "new_secret", refreshed.key != k.key, True)
        r.eq("refresh", "usable", r.op("use_refreshed", lambda: works(refreshed.key)), True)
        old = r.client_with(k.key)
        r.eq("refresh", "old_secret_rejected",
             r.op("use_old_secret", lambda: _rejected(old)), True)
        by_user = r.op("list_by_user", lambda: c.api_keys.list(user_id=k.created_by_user_id,
                                                               limit=100))
        if by_user:
            r.eq("list_by_user", "ids", [x.id for x in keys(by_user) if x.id == k.id], [k.id])
        r.op("revoke", lambda: c.api_keys.revoke(api_key_id=refreshed.id))
        revoked = r.op("list_after_revoke", lambda: c.api_keys.list(status="REVOKED", limit=100))
        if revoked:
            r.eq("list_after_revoke", "revoked",
                 [x.id for x in keys(revoked) if x.id == refreshed.id], [refreshed.id])
        r.eq("revoke", "rejected", r.op("use_revoked", lambda: _rejected(
            r.client_with(refreshed.key))), True)

# A naive expiry (no offset) is taken as UTC, the instant the SDK's isoformat() leaves out.
naive = r.op("create_naive_expiry", lambda: c.api_keys.create(
    name=r.name("py-naive-key"), expires_at=expires.replace(tzinfo=None)))
if naive:
    r.eq("create_naive_expiry", "expires_at", naive.expires_at, expires)
    r.op("revoke_naive_expiry", lambda: c.api_keys.revoke(api_key_id=naive.id))

# A SERVICE key bound to a space (by name, which the SDK resolves).
s = r.op("create_service_key", lambda: c.api_keys.create_service_key(
    name=r.name("py-service-key"), description="service",
    orgs=[OrgBinding(org_id=org.id, spaces=[SpaceBinding(space=space.name)])]))
if s:
    r.eq("create_service_key", "name", s.name, r.name("py-service-key"))
    r.eq("create_service_key", "key_type", val(s.key_type), "SERVICE")
    r.eq("create_service_key", "bot_space", s.bot_user.organizations[0].spaces[0].space_id,
         space.id)
    r.eq("create_service_key", "usable", r.op("use_service_key", lambda: works(s.key)), True)
    by_space = r.op("list_by_space", lambda: c.api_keys.list(space=space.name, key_type="SERVICE",
                                                             limit=100))
    if by_space:
        r.eq("list_by_space", "ids", [x.id for x in keys(by_space) if x.id == s.id], [s.id])
    # With a space, user_id filters the space's SERVICE keys by their creator.
    by_creator = r.op("list_by_space_and_creator", lambda: c.api_keys.list(
        space=space.id, key_type="SERVICE", user_id=s.created_by_user_id, limit=100))
    if by_creator:
        r.eq("list_by_space_and_creator", "ids",
             [x.id for x in keys(by_creator) if x.id == s.id], [s.id])
    # A refresh with a grace period: the old secret keeps working for it.
    rotated = r.op("refresh_with_grace", lambda: c.api_keys.refresh(
        api_key_id=s.id, grace_period_seconds=600))
    if rotated:
        r.eq("refresh_with_grace", "fields", (rotated.id, rotated.name, val(rotated.key_type)),
             (s.id, s.name, "SERVICE"))
        r.eq("refresh_with_grace", "new_usable",
             r.op("use_rotated", lambda: works(rotated.key)), True)
        r.eq("refresh_with_grace", "old_usable",
             r.op("use_old_in_grace", lambda: works(s.key)), True)
    r.op("revoke_service_key", lambda: c.api_keys.revoke(api_key_id=s.id))

# A SERVICE key with explicit roles: account, organization and space.
roled = r.op("create_service_key_roles", lambda: c.api_keys.create_service_key(
    name=r.name("py-roled-key"),
    account_role=gen.UserRoleAssignmentRequest(
        gen.PredefinedUserRoleAssignmentRequest(type="PREDEFINED", name="MEMBER")),
    orgs=[OrgBinding(
        org_id=org.id,
        role=gen.OrganizationRoleAssignmentRequest(
            gen.OrganizationPredefinedRoleAssignmentRequest(type="PREDEFINED", name="MEMBER")),
        spaces=[SpaceBinding(space=space.id, role=gen.SpaceRoleAssignmentRequest(
            gen.PredefinedRoleAssignmentRequest(type="PREDEFINED", name="ADMIN")))])]))
if roled:
    b = roled.bot_user
    r.eq("create_service_key_roles", "roles",
         (b.account_role.to_dict(), b.organizations[0].role.to_dict(),
          b.organizations[0].spaces[0].role.to_dict()),
         ({"type": "PREDEFINED", "name": "MEMBER"}, {"type": "PREDEFINED", "name": "MEMBER"},
          {"type": "PREDEFINED", "name": "ADMIN"}))
    r.op("revoke_service_key_roles", lambda: c.api_keys.revoke(api_key_id=roled.id))

# An ADMIN service key (only an account admin makes one): the account admin role itself.
admin = r.op("create_service_key_admin", lambda: c.api_keys.create_service_key(
    name=r.name("py-admin-key"),
    account_role=gen.UserRoleAssignmentRequest(
        gen.PredefinedUserRoleAssignmentRequest(type="PREDEFINED", name="ADMIN")),
    orgs=[OrgBinding(org_id=org.id, spaces=[SpaceBinding(space=space.id)])]))
if admin:
    r.eq("create_service_key_admin", "account_role", admin.bot_user.account_role.to_dict(),
         {"type": "PREDEFINED", "name": "ADMIN"})
    as_admin = r.client_with(admin.key)
    # Audit logs are for account admins alone.
    logs = r.op("admin_key_reads_audit_logs", lambda: as_admin.audit_logs.list(limit=1))
    r.eq("admin_key_reads_audit_logs", "answered", logs is not None, True)
    r.op("revoke_service_key_admin", lambda: c.api_keys.revoke(api_key_id=admin.id))

# A custom role in a space: the key holds that role's permissions there, and no more.
custom_role = c.roles.create(name=r.name("py-key-role"), permissions=["SPACE_READ", "PROJECT_READ"])
custom = r.op("create_service_key_custom_role", lambda: c.api_keys.create_service_key(
    name=r.name("py-custom-key"),
    orgs=[OrgBinding(org_id=org.id, spaces=[SpaceBinding(
        space=space.id, role=gen.SpaceRoleAssignmentRequest(
            gen.CustomRoleAssignmentRequest(type="CUSTOM", id=custom_role.id)))])]))
if custom:
    # (the SDK's to_dict leaves the read-only name out: read the parsed attributes)
    role = custom.bot_user.organizations[0].spaces[0].role.actual_instance
    r.eq("create_service_key_custom_role", "space_role", (val(role.type), role.id, role.name),
         ("CUSTOM", custom_role.id, custom_role.name))
    as_custom = r.client_with(custom.key)
    got = r.op("custom_key_reads_space", lambda: as_custom.spaces.get(space=space.id))
    r.eq("custom_key_reads_space", "id", got and got.id, space.id)
    try:
        as_custom.projects.create(name=r.name("py-not-allowed"), space=space.id)
        created = True
    except Exception:  # noqa: BLE001
        created = False
    r.eq("custom_key_cannot_create_project", "created", created, False)
    r.op("revoke_service_key_custom_role", lambda: c.api_keys.revoke(api_key_id=custom.id))
r.done()
