-- The public API's space settings that Argus stores and returns (update_space, issue 13):
-- ml_models_enabled, gradient colors, default_llm_integration, default_agent_runtime.
alter table spaces add column settings jsonb not null default '{}'::jsonb;
