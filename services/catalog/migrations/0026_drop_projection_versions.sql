-- Commands append at the version of the stream they read in their own transaction (the
-- command handler), never at a projection's copy of it: the copies go.
alter table tags drop column version;
alter table projects drop column version;
