-- The catalog resource registry: every catalog-owned resource that can carry tags (project,
-- prompt, evaluator, annotation_queue), written by that resource's own projection, so tag
-- attach/detach/list can find any resource's space with one lookup.
create table resources (
  type text not null,
  id uuid not null,
  account_id uuid not null,
  space_id uuid not null,
  primary key (type, id)
);
