// Type declarations for the undici files imported one by one in undici-pool.ts.
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: { prototype: object };
  export default Dispatcher;
}
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: unknown;
  export default Pool;
}
declare module 'undici/lib/api/api-request.js' {
  const request: unknown;
  export default request;
}
