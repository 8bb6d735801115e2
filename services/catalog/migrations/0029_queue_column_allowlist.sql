-- The public API's column_allowlist of an annotation queue (issue 13): stored and returned;
-- null means unrestricted.
alter table annotation_queues add column column_allowlist jsonb;
