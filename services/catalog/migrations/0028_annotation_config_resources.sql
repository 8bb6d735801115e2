-- Annotation configs carry tags: they join the resource registry (their projection registers
-- each new one); the ones created before are registered here.
insert into resources (type, id, account_id, space_id)
select 'annotation_config', id, account_id, space_id from annotation_configs
on conflict do nothing;
