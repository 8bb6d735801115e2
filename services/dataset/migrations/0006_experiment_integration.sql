-- The AGENT integration whose calls made an experiment's outputs (an AGENT_CALL task run's
-- experiment): the public Experiment's integration_id. Null for every other experiment.
alter table experiments add column integration_id uuid;
