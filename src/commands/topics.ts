// `rfs help exit-codes` and `rfs help environment`: the tables of cli.md, for scripts' authors.
const EXIT_CODES = `Exit codes of rfs

  0    success
  1    an unexpected failure (a bug); for verify-signature: the signature is not valid
  2    invalid request: bad flags, arguments or local input (nothing sent), or HTTP 400/415
  3    no key configured, or HTTP 401/403 (UNAUTHORIZED, INSUFFICIENT_SCOPE, SUBSCRIPTION_REQUIRED)
  4    not found: HTTP 404 RESOURCE_NOT_FOUND
  5    conflict: HTTP 409 (RECORDING_NOT_COMPLETED, WEBHOOK_SUBSCRIPTION_LIMIT_EXCEEDED)
  6    transient failure still there after the retries: 429, 5xx, network error or timeout
  7    the server's answer broke the contract: not JSON, or not the documented shape
  8    a batch finished and some of its items failed (file --from, deliveries replay, sync)
  130  interrupted: Ctrl-C, SIGTERM or SIGHUP (named); a batch reports what it finished and what it did not
`;

const ENVIRONMENT = `Environment variables read by rfs

  RFS_API_KEY         API key (service_pk_…); overrides the profile's key. Never a flag.
  RFS_API_KEY_FILE    a file holding the API key (a mounted Secret), instead of RFS_API_KEY
  RFS_BASE_URL        service root; overrides the profile's (same as --base-url)
  RFS_PROFILE         profile to use (same as --profile)
  RFS_CONFIG_DIR      config folder (default $XDG_CONFIG_HOME/rfs, i.e. ~/.config/rfs)
  RFS_WEBHOOK_SECRET  webhook secret for verify-signature and webhooks listen
  RFS_DEBUG=1         same as --verbose
  RFS_NO_INPUT=1      never prompt, as if there were no terminal
  RFS_EXEC_ENV        more variables for sync's --exec command (names, PREFIX*); adds to --exec-env
  NO_COLOR            no colour (any value); FORCE_COLOR forces it
  XDG_CONFIG_HOME     base of the default config folder
  XDG_STATE_HOME      base of the default sync journal folder
  XDG_CACHE_HOME      base of the code cache folder (default ~/.cache/rfs; safe to delete)
  NODE_DISABLE_COMPILE_CACHE=1
                      no code cache (NODE_DEBUG=rfs-bundle says what happened to it)

Precedence, in every row: flag, then environment, then profile.
`;

export const HELP_TOPICS: Record<string, string> = {
  'exit-codes': EXIT_CODES,
  environment: ENVIRONMENT,
};
