// The API's limits that rfs reasons from (api.md, Limits), each written once: the client and
// the sandbox read them here, and the help text names them from here.

/** Requests a minute per workspace: shared by everything that uses its key (sync, watch, …). */
export const WORKSPACE_REQUESTS_PER_MINUTE = 120;

/** Rows a deliveries list holds at most; it has no cursor. */
export const DELIVERY_LIST_ROWS = 50;

/** True when a deliveries list of `rows` came back full: more of its kind may exist than it shows. */
export const isFullDeliveryList = (rows: number): boolean => rows >= DELIVERY_LIST_ROWS;
