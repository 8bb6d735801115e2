const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Ids that cannot be a resource id (not a uuid) are simply not found, never a query error. */
export const isUuid = (id: string): boolean => UUID.test(id);
