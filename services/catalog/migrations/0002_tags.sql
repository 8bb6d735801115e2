create table tags (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null,
  description text,
  color text,
  -- The tag stream's version: updates and deletes append at it (optimistic concurrency).
  version integer not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Tag names are unique per space, compared case-insensitively after trimming (spec Tag):
-- a racing duplicate is a 409, never a second tag.
create unique index tags_name_per_space on tags (space_id, lower(trim(name)));
create index tags_space on tags (space_id, id desc);

-- Which tags a resource carries. Resources of other services (dataset, experiment) are
-- checked against their owner before a row is written; space_id is the resource's space.
create table tag_attachments (
  tag_id uuid not null references tags(id) on delete cascade,
  resource_type text not null,
  resource_id uuid not null,
  space_id uuid not null,
  attached_at timestamptz not null,
  primary key (resource_type, resource_id, tag_id)
);
create index tag_attachments_tag on tag_attachments (tag_id);
