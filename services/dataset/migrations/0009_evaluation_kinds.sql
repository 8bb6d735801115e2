-- Evaluations left out (a null label, score or explanation) were recorded in the run column
-- catalog as objects (json_kind of SQL NULL is 16, not JSON null's 0): an evaluation column
-- that says so is read again from its runs' values.
update run_columns c
   set kinds = coalesce((select bit_or(json_kind(r.fields -> c.name))
                           from experiment_runs r
                          where r.experiment_id = c.experiment_id and r.fields ? c.name), 0)
 where c.name like 'eval.%' and c.kinds & 16 <> 0;
