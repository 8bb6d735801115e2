-- Which annotation configs each queue uses, as rows with a foreign key to the config: deleting
-- a config a queue uses fails in the database (no action), and a queue naming a config that
-- is being deleted waits for that delete and then fails, so "a config in use cannot be
-- deleted" holds under any interleaving of the two commands (both become 409).
create table annotation_queue_configs (
  queue_id uuid not null references annotation_queues (id) on delete cascade,
  config_id uuid not null,
  primary key (queue_id, config_id),
  constraint annotation_queue_configs_config_fk foreign key (config_id)
    references annotation_configs (id)
);
create index annotation_queue_configs_config on annotation_queue_configs (config_id);

-- Queues projected before this table: their configs (a config deleted in a past race is skipped).
insert into annotation_queue_configs (queue_id, config_id)
  select q.id, c.id
    from annotation_queues q
    cross join lateral unnest(q.annotation_config_ids) as u(config_id)
    join annotation_configs c on c.id = u.config_id
  on conflict do nothing;
