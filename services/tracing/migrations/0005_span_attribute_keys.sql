-- The kind of one attribute value, as a bit (argus.dataset.v1.ColumnKind): string 1, boolean 2,
-- integer 4, other number 8, object or array 16, null 0. An integer is one JavaScript keeps
-- exact (15 digits): a longer one would come back as `1e+21` or rounded, so it counts as
-- another number. The one place of this rule: ingestion and the backfill below both use it.
create function span_value_kind(v jsonb) returns integer
  language sql immutable parallel safe
  as $$
    select case jsonb_typeof(v)
      when 'string' then 1
      when 'boolean' then 2
      when 'number' then case when v::text ~ '^-?[0-9]{1,15}$' then 4 else 8 end
      when 'null' then 0
      else 16
    end
  $$;

-- The attribute keys of each project's spans per day (the spans' partition), with the kinds of
-- their values, in the order they were first seen: the span export's columns, known before its
-- first row without reading every span of the window twice. Written by the statement that
-- stores spans (and the one that sets their metadata); a key only ever gains kinds, and stays
-- when its spans are deleted one by one (an all-null column). Retention drops a day's keys with
-- the day's partition.
create table span_attribute_keys (
  project_id uuid not null,
  day date not null,
  key text not null,
  kinds integer not null,
  seq bigint generated always as identity,
  primary key (project_id, day, key)
);
-- Retention drops whole days.
create index span_attribute_keys_day on span_attribute_keys (day);

insert into span_attribute_keys (project_id, day, key, kinds)
select s.project_id, (s.start_time at time zone 'UTC')::date, k.key, bit_or(span_value_kind(k.value))
  from spans s cross join lateral jsonb_each(s.attributes) k
 group by 1, 2, 3
 order by 1, 2, min(s.start_time), 3;
