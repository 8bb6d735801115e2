import { INIT_ADMIN_EMAIL } from "@argus/testkit";
import type { MatrixHelpers } from "./authz-catalog.ts";
import {
  pastWindow,
  recentWindow,
  sendSpans,
  type SentSpans,
  type SpanTarget,
} from "./spans-support.ts";

interface Request {
  method: string;
  path: string;
  body?: unknown;
}

const promptVersion = {
  commit_message: "initial",
  provider: "OPEN_AI",
  messages: [{ role: "USER", content: "Hello {name}" }],
};
const templateVersion = {
  commit_message: "initial",
  template_config: {
    name: "relevance",
    template: "Is {output} relevant?",
    include_explanations: false,
    use_function_calling_if_available: false,
    classification_choices: { relevant: 1, irrelevant: 0 },
    llm_config: {
      ai_integration_id: "QWlJbnRlZ3JhdGlvbjp4",
      model_name: "gpt-4o",
      invocation_parameters: {},
      provider_parameters: {},
    },
  },
};

/**
 * Recipes of the authorization matrix (authz-matrix.e2e.test.ts) for prompts, evaluators,
 * annotation configs, annotation queues, spans and traces and AI integrations: every target
 * lives in a fresh private space (AI integrations are account-wide), created by the admin.
 * Spans go in over OTLP to `spans()`, the stack's gateway, with the admin's key.
 */
export function contentRecipes(
  h: MatrixHelpers,
  spans: () => SpanTarget,
): Record<string, () => Promise<Request>> {
  const prompt = async () =>
    h.asAdmin("POST", "/v2/prompts", {
      space_id: await h.freshSpace(),
      name: h.unique(),
      version: promptVersion,
    });
  const labelled = async () => {
    const p = await prompt();
    await h.asAdmin("PUT", `/v2/prompt-versions/${p.version.id}/labels`, { labels: ["prod"] });
    return p;
  };
  // A template must name an AI integration applying to its space: one account-wide one.
  let accountWide: Promise<string> | undefined;
  const usableTemplate = async () => {
    accountWide ??= integration().then((i) => i.id as string);
    const c = templateVersion.template_config;
    return {
      ...templateVersion,
      template_config: {
        ...c,
        llm_config: { ...c.llm_config, ai_integration_id: await accountWide },
      },
    };
  };
  const evaluator = async () =>
    h.asAdmin("POST", "/v2/evaluators", {
      space_id: await h.freshSpace(),
      name: h.unique(),
      type: "TEMPLATE",
      version: await usableTemplate(),
    });
  const config = async (space?: string) =>
    h.asAdmin("POST", "/v2/annotation-configs", {
      space_id: space ?? (await h.freshSpace()),
      name: h.unique(),
      annotation_config_type: "FREEFORM",
    });
  /** A project of `space` (a fresh private one by default) with one trace of two spans. */
  const spanned = async (space?: string): Promise<SentSpans & { space: string }> => {
    const s = space ?? (await h.freshSpace());
    return { space: s, ...(await sendSpans(spans(), { spaceId: s, projectName: h.unique() })) };
  };
  // Records must name spans the project has, in the source's window.
  const spanSource = (sent: SentSpans) => ({
    record_type: "SPAN",
    project_id: sent.projectId,
    ...recentWindow(),
    span_ids: [sent.spanIds[0]],
  });
  const queue = async (withRecord = false) => {
    const space = await h.freshSpace();
    const cfg = await config(space);
    const sent = await spanned(space);
    const project = { id: sent.projectId };
    const q = await h.asAdmin("POST", "/v2/annotation-queues", {
      space_id: space,
      name: h.unique(),
      annotation_config_ids: [cfg.id],
      annotator_emails: [INIT_ADMIN_EMAIL],
      ...(withRecord ? { record_sources: [spanSource(sent)] } : {}),
    });
    const records = withRecord
      ? (await h.asAdmin("GET", `/v2/annotation-queues/${q.id}/records`)).records
      : [];
    return { queue: q, config: cfg, project, sent, record: records[0] };
  };
  const integration = async () =>
    h.asAdmin("POST", "/v2/ai-integrations", { name: h.unique(), provider: "OPEN_AI" });

  return {
    list_prompts: async () => ({ method: "GET", path: "/v2/prompts" }),
    create_prompt: async () => ({
      method: "POST",
      path: "/v2/prompts",
      body: { space_id: await h.freshSpace(), name: h.unique(), version: promptVersion },
    }),
    get_prompt: async () => ({ method: "GET", path: `/v2/prompts/${(await prompt()).id}` }),
    update_prompt: async () => ({
      method: "PATCH",
      path: `/v2/prompts/${(await prompt()).id}`,
      body: { description: "changed" },
    }),
    delete_prompt: async () => ({ method: "DELETE", path: `/v2/prompts/${(await prompt()).id}` }),
    get_prompt_label: async () => ({
      method: "GET",
      path: `/v2/prompts/${(await labelled()).id}/labels/prod`,
    }),
    list_prompt_versions: async () => ({
      method: "GET",
      path: `/v2/prompts/${(await prompt()).id}/versions`,
    }),
    create_prompt_version: async () => ({
      method: "POST",
      path: `/v2/prompts/${(await prompt()).id}/versions`,
      body: promptVersion,
    }),
    get_prompt_version: async () => ({
      method: "GET",
      path: `/v2/prompt-versions/${(await prompt()).version.id}`,
    }),
    set_prompt_version_label: async () => ({
      method: "PUT",
      path: `/v2/prompt-versions/${(await prompt()).version.id}/labels`,
      body: { labels: ["staging"] },
    }),
    delete_prompt_version_label: async () => ({
      method: "DELETE",
      path: `/v2/prompt-versions/${(await labelled()).version.id}/labels/prod`,
    }),

    list_evaluators: async () => ({ method: "GET", path: "/v2/evaluators" }),
    create_evaluator: async () => ({
      method: "POST",
      path: "/v2/evaluators",
      body: {
        space_id: await h.freshSpace(),
        name: h.unique(),
        type: "TEMPLATE",
        version: await usableTemplate(),
      },
    }),
    get_evaluator: async () => ({
      method: "GET",
      path: `/v2/evaluators/${(await evaluator()).id}`,
    }),
    update_evaluator: async () => ({
      method: "PATCH",
      path: `/v2/evaluators/${(await evaluator()).id}`,
      body: { description: "changed" },
    }),
    delete_evaluator: async () => ({
      method: "DELETE",
      path: `/v2/evaluators/${(await evaluator()).id}`,
    }),
    list_evaluator_versions: async () => ({
      method: "GET",
      path: `/v2/evaluators/${(await evaluator()).id}/versions`,
    }),
    create_evaluator_version: async () => ({
      method: "POST",
      path: `/v2/evaluators/${(await evaluator()).id}/versions`,
      body: await usableTemplate(),
    }),
    delete_evaluator_versions: async () => {
      const e = await evaluator();
      const v2 = await h.asAdmin("POST", `/v2/evaluators/${e.id}/versions`, await usableTemplate());
      return {
        method: "DELETE",
        path: `/v2/evaluators/${e.id}/versions`,
        body: { version_ids: [v2.id] },
      };
    },
    list_evaluator_templates: async () => ({ method: "GET", path: "/v2/evaluator-templates" }),
    get_evaluator_version: async () => ({
      method: "GET",
      path: `/v2/evaluator-versions/${(await evaluator()).version.id}`,
    }),

    list_annotation_configs: async () => ({ method: "GET", path: "/v2/annotation-configs" }),
    list_annotation_config_tags: async () => ({
      method: "GET",
      path: `/v2/annotation-configs/${(await config()).id}/tags`,
    }),
    add_annotation_config_tags: async () => {
      const space = await h.freshSpace();
      const tag = await h.asAdmin("POST", "/v2/tags", { space_id: space, name: h.unique() });
      return {
        method: "POST",
        path: `/v2/annotation-configs/${(await config(space)).id}/tags`,
        body: { tag_ids: [tag.id] },
      };
    },
    create_annotation_config: async () => ({
      method: "POST",
      path: "/v2/annotation-configs",
      body: {
        space_id: await h.freshSpace(),
        name: h.unique(),
        annotation_config_type: "FREEFORM",
      },
    }),
    get_annotation_config: async () => ({
      method: "GET",
      path: `/v2/annotation-configs/${(await config()).id}`,
    }),
    update_annotation_config: async () => ({
      method: "PATCH",
      path: `/v2/annotation-configs/${(await config()).id}`,
      body: { annotation_config_type: "FREEFORM", name: h.unique() },
    }),
    delete_annotation_config: async () => ({
      method: "DELETE",
      path: `/v2/annotation-configs/${(await config()).id}`,
    }),

    list_annotation_queues: async () => ({ method: "GET", path: "/v2/annotation-queues" }),
    create_annotation_queue: async () => {
      const space = await h.freshSpace();
      return {
        method: "POST",
        path: "/v2/annotation-queues",
        body: {
          space_id: space,
          name: h.unique(),
          annotation_config_ids: [(await config(space)).id],
          annotator_emails: [INIT_ADMIN_EMAIL],
        },
      };
    },
    get_annotation_queue: async () => ({
      method: "GET",
      path: `/v2/annotation-queues/${(await queue()).queue.id}`,
    }),
    update_annotation_queue: async () => ({
      method: "PATCH",
      path: `/v2/annotation-queues/${(await queue()).queue.id}`,
      body: { instructions: "changed" },
    }),
    delete_annotation_queue: async () => ({
      method: "DELETE",
      path: `/v2/annotation-queues/${(await queue()).queue.id}`,
    }),
    list_annotation_queue_records: async () => ({
      method: "GET",
      path: `/v2/annotation-queues/${(await queue()).queue.id}/records`,
    }),
    create_annotation_queue_record: async () => {
      const q = await queue();
      return {
        method: "POST",
        path: `/v2/annotation-queues/${q.queue.id}/records`,
        body: { record_sources: [spanSource(q.sent)] },
      };
    },
    delete_annotation_queue_record: async () => {
      const q = await queue(true);
      return {
        method: "DELETE",
        path: `/v2/annotation-queues/${q.queue.id}/records`,
        body: { record_ids: [q.record.id] },
      };
    },
    annotate_annotation_queue_record: async () => {
      const q = await queue(true);
      return {
        method: "POST",
        path: `/v2/annotation-queues/${q.queue.id}/records/${q.record.id}/annotate`,
        body: { annotations: [{ name: q.config.name, text: "ok" }] },
      };
    },
    assign_annotation_queue_record: async () => {
      const q = await queue(true);
      return {
        method: "POST",
        path: `/v2/annotation-queues/${q.queue.id}/records/${q.record.id}/assign`,
        body: { assigned_user_emails: [] },
      };
    },

    list_spans: async () => ({
      method: "POST",
      path: "/v2/spans",
      body: { project_id: (await spanned()).projectId, ...recentWindow() },
    }),
    list_traces: async () => ({
      method: "POST",
      path: "/v2/traces",
      body: { project_id: (await spanned()).projectId, ...recentWindow() },
    }),
    annotate_spans: async () => {
      const sent = await spanned();
      const cfg = await config(sent.space);
      return {
        method: "POST",
        path: "/v2/spans/annotate",
        body: {
          project_id: sent.projectId,
          ...pastWindow(),
          annotations: [{ record_id: sent.spanIds[1], values: [{ name: cfg.name, text: "ok" }] }],
        },
      };
    },
    delete_spans: async () => {
      const sent = await spanned();
      return {
        method: "DELETE",
        path: "/v2/spans",
        body: { project_id: sent.projectId, span_ids: sent.spanIds },
      };
    },

    list_ai_integrations: async () => ({ method: "GET", path: "/v2/ai-integrations" }),
    create_ai_integration: async () => ({
      method: "POST",
      path: "/v2/ai-integrations",
      body: { name: h.unique(), provider: "OPEN_AI", api_key: "sk-matrix-0123456789" },
    }),
    get_ai_integration: async () => ({
      method: "GET",
      path: `/v2/ai-integrations/${(await integration()).id}`,
    }),
    update_ai_integration: async () => ({
      method: "PATCH",
      path: `/v2/ai-integrations/${(await integration()).id}`,
      body: { model_names: ["gpt-4o"] },
    }),
    delete_ai_integration: async () => ({
      method: "DELETE",
      path: `/v2/ai-integrations/${(await integration()).id}`,
    }),

    // LLM integrations are the AI integrations: the same rules, under the same id.
    list_integrations: async () => ({ method: "GET", path: "/v2/integrations" }),
    create_integration: async () => ({
      method: "POST",
      path: "/v2/integrations",
      body: { type: "LLM", name: h.unique(), config: { provider: "OPEN_AI", api_key: "sk-m" } },
    }),
    get_integration: async () => ({
      method: "GET",
      path: `/v2/integrations/${(await integration()).id}`,
    }),
    update_integration: async () => ({
      method: "PATCH",
      path: `/v2/integrations/${(await integration()).id}`,
      body: { type: "LLM", config: { is_function_calling_enabled: false } },
    }),
    delete_integration: async () => ({
      method: "DELETE",
      path: `/v2/integrations/${(await integration()).id}`,
    }),
  };
}
