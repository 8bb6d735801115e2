"""The official Python SDK sends the values of issue 13 and reads them back.

argv: base URL, admin key, space id, organization id, AI integration id, dashboard id,
EVALUATOR integration id.
Prints what the SDK parsed, as JSON (one object, keyed by case).
"""
import json
import sys
import time
import uuid
from urllib.parse import urlparse

from arize import ArizeClient
from arize._generated import api_client as gen
from arize.organizations.types import CustomOrgRole

base, key, space_id, org_id, integration_id, dashboard_id, evaluator_integration_id = sys.argv[1:8]
url = urlparse(base)
client = ArizeClient(api_key=key, api_host=url.hostname, api_scheme=url.scheme, api_port=url.port)
out = {}

# Template evaluators: the SDK's use_function_calling, no classification_choices.
created = client.evaluators.create_template_evaluator(
    name="py-template",
    space=space_id,
    commit_message="first",
    template_config=gen.TemplateConfigInput(
        name="py_relevance",
        template="Is {output} relevant?",
        include_explanations=True,
        use_function_calling=True,
        llm_config=gen.EvaluatorLlmConfigRequest(
            ai_integration_id=integration_id,
            model_name="gpt-4o",
            invocation_parameters=gen.InvocationParamsRequest(),
            provider_parameters=gen.ProviderParamsRequest(),
        ),
    ),
)
got = client.evaluators.get(evaluator=created.id)
config = got.version.template_config
out["template"] = {
    "use_function_calling": config.use_function_calling,
    "classification_choices": config.classification_choices,
}

# REMOTE evaluators.
remote = client.evaluators.create_remote_evaluator(
    name="py-remote", space=space_id, integration_id=evaluator_integration_id, commit_message="r"
)
out["remote"] = {
    "type": str(client.evaluators.get(evaluator=remote.id).type.value),
    "integration_id": client.evaluators.get(evaluator=remote.id).version.remote_config.integration_id,
}

# MEMBER_UI_ONLY users.
user = client.users.create(
    name="py ui only",
    email=f"py-{uuid.uuid4()}@example.com",
    role=gen.PredefinedUserRoleAssignmentRequest(type="PREDEFINED", name="MEMBER_UI_ONLY"),
    invite_mode="NONE",
)
out["user_role"] = client.users.get(user=user.id).role.to_dict()

# Providers, OAuth2 auth, and a list the SDK parses (kindless metadata answered with a kind).
for provider in ["LITELLM", "FIREWORKS", "TOGETHER_AI"]:
    client.ai_integrations.create(
        name=f"sdkv {provider}", provider=provider, auth_type="OAUTH2_CLIENT_CREDENTIALS"
    )
listed = client.ai_integrations.list(limit=100)
out["providers"] = sorted(
    i.provider.value for i in listed.ai_integrations if i.name.startswith("sdkv ")
)
out["auth_types"] = sorted(
    {i.auth_type.value for i in listed.ai_integrations if i.name.startswith("sdkv ")}
)

# New permissions on a custom role.
role = client.roles.create(
    name=f"py perms {uuid.uuid4()}",
    permissions=["COST_CONFIG_READ", "DASHBOARD_TEMPLATE_UPDATE", "PROMPT_RESTRICT",
                 "PROJECT_SPAN_EVAL_FEEDBACK_UPDATE"],
)
out["permissions"] = sorted(p.value for p in client.roles.get(role=role.id).permissions)

# DASHBOARD restrictions.
client.resource_restrictions.restrict(resource_id=dashboard_id)
restricted = client.resource_restrictions.list(resource_type="DASHBOARD")
out["restrictions"] = [
    [r.resource_type.value, r.resource_id] for r in restricted.resource_restrictions
]

# add_organization_user with a custom role.
member = client.users.create(
    name="py org custom",
    email=f"py-org-{uuid.uuid4()}@example.com",
    role=gen.PredefinedUserRoleAssignmentRequest(type="PREDEFINED", name="MEMBER"),
    invite_mode="NONE",
)
membership = client.organizations.add_user(
    organization=org_id, user_id=member.id, role=CustomOrgRole(id=role.id)
)
out["org_role"] = membership.role.to_dict() if hasattr(membership.role, "to_dict") else dict(
    membership.role
)

# update_space settings.
space = client.spaces.update(
    space=space_id,
    ml_models_enabled=True,
    gradient_start_color="#123456",
    gradient_end_color="#abcdef",
    default_llm_integration=gen.DefaultLLMIntegration(
        integration_id=integration_id, model_name="gpt-4o"
    ),
    default_agent_runtime=gen.DefaultAgentRuntime(integration_id="runtime"),
)
space = client.spaces.get(space=space_id)
out["space"] = {
    "ml_models_enabled": space.ml_models_enabled,
    "gradient_start_color": space.gradient_start_color,
    "gradient_end_color": space.gradient_end_color,
    "default_llm_model": space.default_llm_integration.model_name,
    "default_agent_runtime": space.default_agent_runtime.integration_id,
}

# list_projects(project_type=...), through the generated API (the client does not take it).
projects_api = gen.ProjectsApi(client.projects._api.api_client)
out["projects"] = {
    t: len(projects_api.list_projects(space_id=space_id, project_type=t).projects)
    for t in ["APPLICATION", "HARNESS"]
}

# list_audit_logs with several operation names (the audit log follows the events: retried).
for _ in range(50):
    logs = client.audit_logs.list(operation_names=["SpaceUpdated", "RoleCreated"], limit=100)
    out["audit_names"] = sorted({entry.operation_name for entry in logs.logs})
    if len(out["audit_names"]) == 2:
        break
    time.sleep(0.2)

print(json.dumps(out))
