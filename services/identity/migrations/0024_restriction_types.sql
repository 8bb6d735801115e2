-- Restrictions of the public API's DASHBOARD and PROMPT resources are stored and listed
-- (issue 13); only PROJECT restrictions are enforced (README "Roles and permissions").
alter table resource_restrictions drop constraint resource_restrictions_resource_type_check;
alter table resource_restrictions add constraint resource_restrictions_resource_type_check
  check (resource_type in ('PROJECT', 'DASHBOARD', 'PROMPT'));
