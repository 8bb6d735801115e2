-- The annotator's e-mail as it was when the annotation was made (the public Annotation shows
-- it): written by the projection from the event, so a page of annotations needs no look-up.
alter table annotations add column annotator_email text;
