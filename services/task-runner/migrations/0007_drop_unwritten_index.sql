-- Since pages are marked written by one row (0006), an item's own `written` flag stays false, so
-- this index held every item with a verdict: 500 more index entries for each page recorded,
-- read only when a run is taken over, which scans the run's items by the primary key as well.
drop index task_run_items_unwritten;
