"""The official Python SDK creates a user with invite_mode TEMPORARY_PASSWORD and resets its
password (issue 13).

argv: base URL, admin key, e-mail. Prints what the SDK returned as JSON.
"""
import json
import sys
from urllib.parse import urlparse

from arize import ArizeClient
from arize.users.types import PredefinedUserRole

base, key, email = sys.argv[1:4]
url = urlparse(base)
client = ArizeClient(api_key=key, api_host=url.hostname, api_scheme=url.scheme, api_port=url.port)
created = client.users.create(
    name="Temp Password",
    email=email,
    role=PredefinedUserRole(name="MEMBER"),
    invite_mode="TEMPORARY_PASSWORD",
)
reset = client.users.reset_password(user_id=created.id)
print(
    json.dumps(
        {
            "id": created.id,
            "status": str(created.status.value if hasattr(created.status, "value") else created.status),
            "invite_mode": str(
                created.invite_mode.value
                if hasattr(created.invite_mode, "value")
                else created.invite_mode
            ),
            "temporary_password": created.temporary_password,
            "reset": reset,
        }
    )
)
