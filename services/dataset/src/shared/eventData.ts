/**
 * A member of the data of an event this transaction appended, read from its row in `events`
 * (as SQL of a parameter holding its id). The event was just appended with the same
 * JSON: reading it back inside Postgres costs less than sending up to 1 MiB of it a second
 * time and having it parsed again, and the rows are made from exactly what was appended.
 */
export const eventData = (member: string, eventId: string): string =>
  `(select data -> '${member}' from events where event_id = ${eventId}::uuid)`;
