"""integrations through client.integrations: LLM integrations of every provider (create_llm),
an AGENT with presets (create_agent), get (id; name by type), list (merged, by type, by name),
update_llm, update_agent, delete; an EVALUATOR integration through the generated client."""
from _common import Run, evaluator_integration, val

from arize._generated import api_client as gen
from arize.integrations.types import IntegrationType

r = Run("integrations")
c = r.client
ints = c.integrations

llm_configs = {
    "OPEN_AI": gen.CreateOpenAiConfig(provider="OPEN_AI", api_key="sk-py"),
    "ANTHROPIC": gen.CreateAnthropicConfig(provider="ANTHROPIC", api_key="sk-ant",
                                           base_url="https://anthropic.example.com/v1"),
    "GEMINI": gen.CreateGeminiConfig(provider="GEMINI", api_key="g"),
    "AWS_BEDROCK": gen.CreateAwsBedrockConfig(
        provider="AWS_BEDROCK", model_names=["claude"],
        auth=gen.CreateAwsBedrockAuth(gen.CreateAwsBedrockDefaultAuth(
            auth_type="DEFAULT", role_arn="arn:aws:iam::1:role/py", external_id="ext"))),
    "CUSTOM": gen.CreateCustomConfig(
        provider="CUSTOM", base_url="https://custom.example.com/v1", model_names=["m"],
        headers={"x-py": "secret"},
        auth=gen.CreateCustomAuth(gen.CreateCustomOauth2ClientCredentialsAuth(
            auth_type="OAUTH2_CLIENT_CREDENTIALS", token_url="https://auth.example.com/token",
            client_id="py-client", client_secret="py-secret", audience="aud"))),
    "VERTEX_AI": gen.CreateVertexAiConfig(provider="VERTEX_AI", project_id="p",
                                          location="us-central1", project_access_label="l"),
    "NVIDIA_NIM": gen.CreateNvidiaNimConfig(provider="NVIDIA_NIM", is_default_models_enabled=True),
    "LITELLM": gen.CreateLiteLlmConfig(provider="LITELLM", base_url="https://litellm.example.com",
                                       api_key="lk", model_names=["a", "b"]),
    "FIREWORKS": gen.CreateFireworksConfig(provider="FIREWORKS", api_key="f"),
    "TOGETHER_AI": gen.CreateTogetherAiConfig(provider="TOGETHER_AI", api_key="t",
                                              is_function_calling_enabled=False),
}
made = {}
for provider, config in llm_configs.items():
    op = f"create_llm_{provider.lower()}"
    i = r.op(op, lambda: ints.create_llm(name=r.name(f"py-{provider}"), config=config))
    if i:
        made[provider] = i
        cfg = i.config.actual_instance
        r.eq(op, "type", (i.type, cfg.provider), ("LLM", provider))
        got = r.op(f"get_llm_{provider.lower()}", lambda: ints.get(integration=i.id))
        if got:
            r.eq(f"get_llm_{provider.lower()}", "config", got.config.actual_instance.to_dict(),
                 cfg.to_dict())

oauth = made.get("CUSTOM")
if oauth:
    auth = oauth.config.actual_instance.auth.actual_instance
    r.eq("create_llm_custom", "auth",
         (auth.auth_type, auth.client_id, auth.has_client_secret, auth.audience,
          oauth.config.actual_instance.has_api_key, oauth.config.actual_instance.header_names),
         ("OAUTH2_CLIENT_CREDENTIALS", "py-client", True, "aud", False, ["x-py"]))
bedrock = made.get("AWS_BEDROCK")
if bedrock:
    auth = bedrock.config.actual_instance.auth.actual_instance
    r.eq("create_llm_aws_bedrock", "auth", (auth.auth_type, auth.role_arn, auth.external_id),
         ("DEFAULT", "arn:aws:iam::1:role/py", "ext"))

openai = made.get("OPEN_AI")
if openai:
    by_name = r.op("get_by_name", lambda: ints.get(integration=openai.name,
                                                   integration_type=IntegrationType.LLM))
    r.eq("get_by_name", "id", by_name and by_name.id, openai.id)
    upd = r.op("update_llm", lambda: ints.update_llm(
        integration=openai.name, name=r.name("py-openai-renamed"), api_key=None,
        function_calling_enabled=False))
    if upd:
        cfg = upd.config.actual_instance
        r.eq("update_llm", "fields", (upd.name, cfg.has_api_key, cfg.is_function_calling_enabled),
             (r.name("py-openai-renamed"), False, False))
vertex = made.get("VERTEX_AI")
if vertex:
    moved = r.op("update_llm_vertex", lambda: ints.update_llm(integration=vertex.id,
                                                               location="europe-west4"))
    if moved:
        cfg = moved.config.actual_instance
        r.eq("update_llm_vertex", "fields", (cfg.project_id, cfg.location),
             ("p", "europe-west4"))
if bedrock:
    swapped = r.op("update_llm_bedrock_auth", lambda: ints.update_llm(
        integration=bedrock.id,
        auth=gen.CreateAwsBedrockAuth(gen.CreateAwsBedrockBearerTokenAuth(
            auth_type="BEARER_TOKEN", api_key="bearer"))))
    if swapped:
        auth = swapped.config.actual_instance.auth.actual_instance
        r.eq("update_llm_bedrock_auth", "auth", (auth.auth_type, auth.has_api_key),
             ("BEARER_TOKEN", True))

schema = {"type": "object", "properties": {"question": {"type": "string"}},
          "required": ["question"]}
agent = r.op("create_agent", lambda: ints.create_agent(
    name=r.name("py-agent"), endpoint="https://agent.example.com/run", input_schema=schema,
    description="py agent", headers={"authorization": "Bearer secret"},
    request_presets=[gen.CreateAgentRequestPresetInput(name="short", config={"question": "hi"})]))
if agent:
    cfg = agent.config
    r.eq("create_agent", "fields",
         (agent.type, agent.description, cfg.endpoint, cfg.has_headers, cfg.input_schema,
          [(p.name, p.config) for p in cfg.request_presets]),
         ("AGENT", "py agent", "https://agent.example.com/run", True, schema,
          [("short", {"question": "hi"})]))
    got = r.op("get_agent_by_name", lambda: ints.get(integration=agent.name,
                                                     integration_type=IntegrationType.AGENT))
    r.eq("get_agent_by_name", "id", got and got.id, agent.id)
    upd = r.op("update_agent", lambda: ints.update_agent(
        integration=agent.id, description=None, headers=None,
        request_presets=[gen.UpdateAgentRequestPresetInput(name="short", config={"question": "?"}),
                         gen.UpdateAgentRequestPresetInput(name="long", description="d",
                                                           config={})]))
    if upd:
        r.eq("update_agent", "fields",
             (upd.description, upd.config.has_headers,
              [(p.name, p.description, p.config) for p in upd.config.request_presets],
              upd.config.request_presets[0].id),
             (None, False, [("short", None, {"question": "?"}), ("long", "d", {})],
              agent.config.request_presets[0].id))

evaluator_id = r.op("create_evaluator_integration",
                    lambda: evaluator_integration(c, r.name("py-remote-endpoint")))

listed = r.op("list", lambda: ints.list(name=r.suffix, limit=100))
if listed:
    kinds = sorted({val(x.type) for x in listed.integrations})
    r.eq("list", "types", kinds, ["AGENT", "LLM"])
    r.eq("list", "count", len(listed.integrations), len(made) + (1 if agent else 0))
only_llm = r.op("list_by_type", lambda: ints.list(integration_type=IntegrationType.LLM,
                                                  name=r.suffix))
if only_llm:
    r.eq("list_by_type", "count", len(only_llm.integrations), len(made))
page = r.op("list_page", lambda: ints.list(name=r.suffix, limit=3))
if page:
    nxt = r.op("list_next_page", lambda: ints.list(name=r.suffix, limit=3,
                                                   cursor=page.pagination.next_cursor))
    if nxt:
        first = {x.id for x in page.integrations}
        r.eq("list_next_page", "disjoint",
             [x.id for x in nxt.integrations if x.id in first], [])

for provider, i in made.items():
    r.op(f"delete_llm_{provider.lower()}", lambda: ints.delete(integration=i.id))
if agent:
    r.op("delete_agent", lambda: ints.delete(integration=agent.name,
                                             integration_type=IntegrationType.AGENT))
if evaluator_id:
    r.op("delete_evaluator_integration", lambda: ints.delete(integration=evaluator_id))
after = r.op("list_after_delete", lambda: ints.list(name=r.suffix))
if after is not None:
    r.eq("list_after_delete", "count", len(after.integrations), 0)
r.done()
