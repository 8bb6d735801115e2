/** Spans per export request; a larger request is refused whole (clients split their batches). */
export const MAX_SPANS_PER_REQUEST = 100_000;

/**
 * Attributes kept per span and per event (distinct keys, first seen first kept). Excess ones are
 * dropped silently, as SDKs do with their own attribute limits; the span itself is still stored.
 */
export const MAX_ATTRIBUTES_PER_SPAN = 1000;

/** Events kept per span, in the order sent; later ones are dropped silently, like attributes. */
export const MAX_EVENTS_PER_SPAN = 128;

/** Attribute string values are cut to this many UTF-16 code units (1 Mi). */
export const MAX_ATTRIBUTE_STRING_LENGTH = 1024 * 1024;

/** How deep arrays and key-value lists may nest inside one attribute value (as ts-proto's decoder). */
export const MAX_VALUE_NESTING = 100;

/** Nanosecond times are stored as int64; later ones cannot be stored. */
export const MAX_TIME_UNIX_NANO = 2n ** 63n - 1n;
