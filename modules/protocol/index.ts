/**
 * The lwar Rev 1 codec, as another app takes it: wire constants and the message table,
 * packet validation, each message's writer and reader, the drop counters, wrap-safe
 * sequence arithmetic, and lwarChannel(), the settings for a transport Endpoint that
 * carries lwar messages.
 */
export * from "./bytes";
export * from "./channel";
export * from "./codec";
export * from "./constants";
export * from "./counters";
export * from "./seq";
