// Commands that stand apart from the service (`rfs sandbox`, `rfs completion`): they read no
// profile, talk to no API and print no JSON, so none of the global flags applies to them. The
// mark is set where such a command is declared (commands/define.ts, `standalone: true`) and read
// by everything that must treat it apart: the run (a global flag given to one is exit 2, not
// silently ignored), its help (no pointer to the global options), and the completion scripts and
// man page (no global flag offered there).
const marked = new WeakSet<object>();

export function markStandalone(command: object): void {
  marked.add(command);
}

export function isStandalone(command: object): boolean {
  return marked.has(command);
}
