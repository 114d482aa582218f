// The hidden command the completion scripts run for profile names (names only, never keys).
// Its own file: the command's declaration imports it, and must not load the script generators.
export const PROFILES_HOOK = '__complete-profiles';
