"""The official Python SDK deletes evaluator versions, lists the evaluator templates, and
attaches and lists an annotation config's tags (issue 13).

argv: base URL, admin key, evaluator id, version id to delete, version id of another
evaluator, annotation config id, tag id. Prints what the SDK returned as JSON.
"""
import json
import sys
from urllib.parse import urlparse

from arize import ArizeClient
from arize._generated.api_client.models.add_tags_request import AddTagsRequest

base, key, evaluator_id, doomed, foreign, config_id, tag_id = sys.argv[1:8]
url = urlparse(base)
client = ArizeClient(api_key=key, api_host=url.hostname, api_scheme=url.scheme, api_port=url.port)
deleted = client.evaluators.delete_versions(evaluator=evaluator_id, version_ids=[doomed, foreign])
# Neither is on the SDK's high-level clients: their generated API, as the clients hold it.
templates = client.evaluators._api.list_evaluator_templates()
attached = client.annotation_configs._api.add_annotation_config_tags(
    annotation_config_id=config_id, add_tags_request=AddTagsRequest(tag_ids=[tag_id])
)
listed = client.annotation_configs._api.list_annotation_config_tags(annotation_config_id=config_id)
print(
    json.dumps(
        {
            "deleted": deleted.to_dict(),
            "templates": [t.to_dict() for t in templates.evaluator_templates],
            "attached": [t.id for t in attached.tags],
            "listed": [t.id for t in listed.tags],
        }
    )
)
