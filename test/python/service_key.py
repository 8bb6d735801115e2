"""The official Python SDK creates a SERVICE key and reads its bot user (issue 13).

argv: base URL, admin key, space id, organization id. Prints the created key's fields as JSON.
"""
import json
import sys
from urllib.parse import urlparse

from arize import ArizeClient
from arize.api_keys.types import OrgBinding, SpaceBinding

base, key, space_id, org_id = sys.argv[1:5]
url = urlparse(base)
client = ArizeClient(api_key=key, api_host=url.hostname, api_scheme=url.scheme, api_port=url.port)
created = client.api_keys.create_service_key(
    name="from-python",
    orgs=[OrgBinding(org_id=org_id, spaces=[SpaceBinding(space=space_id)])],
)
bot = created.bot_user
print(
    json.dumps(
        {
            "key": created.key,
            "account_role": bot.account_role.to_dict(),
            "org_role": bot.organizations[0].role.to_dict(),
            "space_role": bot.organizations[0].spaces[0].role.to_dict(),
        }
    )
)
