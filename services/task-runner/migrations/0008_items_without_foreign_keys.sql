-- A run's items and written pages go with the run when its task is deleted (the TaskDeleted
-- projection deletes them first), not by a foreign key: the key's check ran once for each item
-- recorded (500 lookups of the run's row a page, about a quarter of the page's insert), and the
-- rows are only ever written by the worker holding the run.
alter table task_run_items drop constraint task_run_items_run_id_fkey;
alter table task_run_pages_written drop constraint task_run_pages_written_run_id_fkey;
