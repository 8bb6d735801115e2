import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * The official Python SDK, pinned, in a virtualenv of its own under .tools/ (created from PyPI
 * on first use, as CI does on a fresh machine). Shared by the suites that drive it.
 */
const SDK =
  "arize==8.61.0 arize-otel==0.14.1 opentelemetry-sdk<1.40 opentelemetry-exporter-otlp-proto-http<1.40 opentelemetry-exporter-otlp-proto-grpc<1.40";
export const root = fileURLToPath(new URL("..", import.meta.url));
const venv = `${root}.tools/arize-8.61.0`;
export const python = `${venv}/bin/python`;
export const run = promisify(execFile);

/** The `ax` CLI, in a virtualenv of its own (./argus makes both). */
const AX_CLI = "arize-ax-cli==0.39.0";

const marked = (dir: string, packages: string) => {
  try {
    return readFileSync(`${dir}/.installed`, "utf8").trim() === packages;
  } catch {
    return false;
  }
};
const installed = () => marked(venv, SDK) && marked(`${root}.tools/ax-cli`, AX_CLI);

/**
 * The virtualenv with the pinned SDK: `./argus test` makes it before the suites start (they run
 * in parallel and must not race to create it); a suite run on its own by vitest makes it
 * through the same command.
 */
export async function ensurePythonSdk(): Promise<void> {
  if (installed()) return;
  await run(`${root}argus`, ["python-sdk"], { cwd: root, timeout: 300_000 });
  if (!installed()) throw new Error(`./argus python-sdk did not install ${SDK} and ${AX_CLI}`);
}

// Issue 13: every operation of the groups Argus serves, driven through the official Python
// SDK's own high-level clients (arize/<group>/client.py, pinned to 8.61.0) by one script per
// group under test/python/groups/. Each script records every SDK call it makes, the exceptions
// they raise and every value read back that differs from the one written, and prints that as
// one JSON summary. SDK 8.61.0 has no high-level tags client: tags.py drives the generated
// TagsApi and the resources' tag operations on the ArizeClient's own generated client.

export interface SdkGroupSummary {
  group: string;
  ops: string[];
  exceptions: { op: string; error: string; trace: string }[];
  mismatches: { op: string; field: string; got: unknown; want: unknown }[];
}

/** The operations each group's script must have run (it runs more: reads after each write). */
export const SDK_GROUPS: Record<string, string> = {
  spaces:
    "create get get_by_name list list_by_name update add_user remove_user " +
    "add_user_custom_role remove_user_custom_role update_settings update_clear_settings delete",
  organizations: "create get get_by_name list list_by_name update add_user remove_user delete",
  users:
    "create get get_by_email list_by_email list_by_status update resend_invitation " +
    "reset_password delete bulk_delete create_custom_role list_after_custom_role",
  api_keys:
    "create list_user_keys list_by_user refresh revoke create_naive_expiry create_service_key " +
    "list_by_space list_by_space_and_creator refresh_with_grace use_old_in_grace " +
    "revoke_service_key create_service_key_roles create_service_key_admin " +
    "admin_key_reads_audit_logs revoke_service_key_admin create_service_key_custom_role " +
    "custom_key_reads_space revoke_service_key_custom_role",
  roles: "create get get_by_name list_custom list_predefined update delete",
  role_bindings:
    "create_space_binding get list_space update delete create_project_binding " +
    "list_project bot_reads_restricted create_bot_binding get_bot_binding list_bot " +
    "bot_reads_bound delete_bot_binding bot_reads_unbound",
  resource_restrictions:
    "restrict_project list_project unrestrict_project restrict_prompt list_prompt " +
    "unrestrict_prompt",
  tags:
    "create update delete add_project_tags list_project_tags remove_project_tags " +
    "add_prompt_tags list_prompt_tags remove_prompt_tags add_evaluator_tags " +
    "list_evaluator_tags remove_evaluator_tags add_annotation_config_tags " +
    "list_annotation_config_tags",
  projects:
    "create get get_by_name get_by_name_in_named_space list list_by_name list_page " +
    "list_next_page update delete",
  prompts:
    "create get get_by_name list list_by_name update create_version get_version " +
    "list_versions set_labels get_version_by_label get_label delete_label " +
    "create_version_params get_version_params delete",
  evaluators:
    "create_template_evaluator get get_by_name list list_by_name update " +
    "create_template_version get_version list_versions delete_versions delete " +
    "create_code_evaluator create_code_version create_remote_evaluator " +
    "create_remote_version create_template_version_full get_version_full",
  annotation_configs:
    "create_continuous get get_by_name list list_by_name update_continuous delete " +
    "create_categorical update_categorical create_freeform update_freeform",
  annotation_queues:
    "create get get_by_name list list_by_name update add_records list_records " +
    "assign_record annotate_record delete_records delete create_random_with_traces " +
    "list_trace_records add_unknown_span list_unknown_span_records",
  // Spans recorded through arize-otel's register over OTLP/gRPC and OTLP/HTTP, read back,
  // annotated and deleted through client.spans and client.traces.
  spans: ["grpc", "http"]
    .map((t) =>
      [
        "register",
        "list",
        "list_filter",
        "list_page",
        "list_next_page",
        "traces_list",
        "annotate",
        "list_annotated",
        "delete",
        "list_after_delete",
      ]
        .map((op) => `${op}_${t}`)
        .join(" "),
    )
    .join(" "),
  ai_integrations:
    "create get get_by_name list list_by_name update delete create_aws_bedrock " +
    "get_aws_bedrock create_vertex_ai get_vertex_ai update_scopings update_clear_scopings",
  // LLM integrations of every provider, an AGENT with presets and an EVALUATOR (the generated
  // client: the high-level one creates LLM and AGENT only), through client.integrations.
  integrations:
    "create_llm_open_ai create_llm_anthropic create_llm_gemini create_llm_aws_bedrock " +
    "create_llm_custom create_llm_vertex_ai create_llm_nvidia_nim create_llm_litellm " +
    "create_llm_fireworks create_llm_together_ai get_by_name update_llm update_llm_vertex " +
    "update_llm_bedrock_auth create_agent get_agent_by_name update_agent " +
    "create_evaluator_integration list list_by_type list_page list_next_page delete_agent " +
    "delete_evaluator_integration list_after_delete",
  audit_logs:
    "list list_by_names list_by_user list_by_type list_naive_window list_naive_before " +
    "list_window list_page list_next_page",
  datasets:
    "create get get_by_name list list_by_name list_examples list_examples_filter " +
    "append_examples update_examples update_new_version list_examples_version " +
    "delete_examples annotate_examples update create_from_dataframe delete list_after_delete",
  experiments:
    "create get list list_all list_runs annotate_runs append_runs delete create_in_space " +
    "list_by_space run run_runs run_traces",
  // Webhooks delivering to a receiver the script runs on loopback (hence
  // ARGUS_WEBHOOK_ALLOW_LOOPBACK): test deliveries, the delivery log, and a prompt's new
  // version delivered through subscriptions, the HMAC_SHA256 one's signature verified.
  webhooks:
    "create create_hmac get get_by_name list list_by_org update test " +
    "list_delivery_attempts create_subscription get_subscription list_subscriptions " +
    "delivery delete_subscription delete",
  // Monitors and a dashboard's widgets through the generated MonitorsApi and DashboardsApi
  // (no high-level client in 8.61.0); what they read is written through Argus's extension.
  monitors:
    "create create_range get get_range list list_by_name list_by_project list_by_type " +
    "list_page list_next_page add_tags list_tags remove_tags evaluate get_after_evaluate " +
    "get_unknown create_dashboard get_widget_line get_widget_statistic get_widget_text " +
    "get_widget_monitor widget_data get_widget_unknown delete get_after_delete",
  // A CODE_EVALUATION task (a managed EXACT_MATCH code evaluator over an experiment's runs)
  // triggered and waited for to COMPLETED, the evaluations read back on the runs; a second
  // trigger without override ends CANCELLED, and cancelling a finished run is a 409. A
  // RUN_EXPERIMENT task (LLM_GENERATION) is created and triggered; its run makes its experiment,
  // with the test model's answers as outputs.
  tasks:
    "create get get_by_name list list_by_dataset update trigger wait_for_run list_runs " +
    "get_run runs_evaluated trigger_again_cancelled cancel_finished delete " +
    "create_custom wait_for_custom custom_evaluated " +
    "create_run_experiment trigger_run_experiment wait_for_run_experiment",
};

/**
 * Runs one group's script against a gateway (its REST base URL, an admin key, its OTLP/gRPC
 * address for the groups that send spans with arize-otel) and returns its summary.
 */
export async function runSdkGroup(
  group: string,
  target: { baseUrl: string; apiKey: string; otlpGrpcAddress: string },
  env: Record<string, string> = {},
): Promise<SdkGroupSummary> {
  const { stdout } = await run(
    python,
    [`test/python/groups/${group}.py`, target.baseUrl, target.apiKey, target.otlpGrpcAddress],
    {
      cwd: root,
      timeout: 150_000,
      env: { ...process.env, DISABLE_PRERELEASE_WARNING: "true", ...env },
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as SdkGroupSummary;
}
