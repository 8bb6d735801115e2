-- A task that runs a dataset records its outputs page by page, each page first asking which of
-- its examples have a run already. Without this index that question read every run of the
-- experiment: each page cost more than the last, and a run over a large dataset grew with the
-- square of its size.
create index experiment_runs_by_example on experiment_runs (experiment_id, example_id);
