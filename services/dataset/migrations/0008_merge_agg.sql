-- The union of JSON objects (later keys win): a run's evaluations of one event merged into one
-- patch from the objects built per evaluation, instead of aggregating key by key.
create aggregate jsonb_merge_agg(jsonb) (sfunc = jsonb_concat, stype = jsonb, initcond = '{}');
