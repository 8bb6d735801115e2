-- Stream prefixes are spelled once, in snake_case (@argus/contracts streams.ts): the identity
-- streams written as apikey-, rolebinding- and serviceaccount- take their one spelling. The
-- audit log's resource_type is the prefix, so its rows follow. Events already published keep
-- their old subjects; every new event of these streams is published under the new one.
update events set stream_id = 'api_key-' || substr(stream_id, 8) where stream_id like 'apikey-%';
update events set stream_id = 'role_binding-' || substr(stream_id, 13)
 where stream_id like 'rolebinding-%';
update events set stream_id = 'service_account-' || substr(stream_id, 16)
 where stream_id like 'serviceaccount-%';
update audit_log set resource_type = 'api_key' where resource_type = 'apikey';
update audit_log set resource_type = 'role_binding' where resource_type = 'rolebinding';
update audit_log set resource_type = 'service_account' where resource_type = 'serviceaccount';
