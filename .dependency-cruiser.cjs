// The import rules of src/ (../shared/style.md, "Layers point one way"), checked by `npm run lint:deps`.
//
// The folders of src/ form a strict order of ranks. A folder may import its own files and folders of a
// lower rank only: never a higher rank and never another folder of the same rank. Because every folder
// must have a rank (rule "folder-without-rank"), two folders can never import each other, directly or
// through others: a cycle between folders would need one edge that points up or sideways. The
// module-level "no-circular" rule catches cycles inside a folder as well.
// CommonJS on purpose: dependency-cruiser reads its configuration with require().

/** Lowest first. A folder of one rank imports only folders of earlier ranks. */
const RANKS = [
  ['core', 'lazy'], // the base (errors, IO, context, redaction); lazy/ holds stand-ins the build hands to dependencies
  ['shared'], // zod schemas, ISO-8601, signatures: shared by the CLI and the sandbox
  ['config'],
  ['api'],
  ['output', 'prompt', 'completion'], // what the user sees: tables and lists, prompts, shell completion scripts
  ['batch'],
  ['webhooks'], // the receiver, verification, sending a delivery
  ['sync'], // the integration loop; --listen runs the webhook receiver
  ['sandbox'], // the service; commands start it, and it imports only shared/ and core/ (rule below)
  ['inspector'], // the --inspect page server of webhooks listen and sandbox: above both sides it shows
  ['commands'],
  ['cli'], // the registry of nouns and the error report: may import every command
  ['sea'], // entry points: the single executable's entry (src/main.ts sits at the top of src/ itself)
];

const folder = (name) => `^src/${name}/`;
const rankOf = (name) => RANKS.findIndex((rank) => rank.includes(name));
const allFolders = RANKS.flat();

const layerRules = allFolders.map((name) => {
  const forbidden = allFolders.filter((other) => other !== name && rankOf(other) >= rankOf(name));
  return {
    name: `layer-${name}`,
    comment: `src/${name}/ may import only folders of a lower rank than its own (.dependency-cruiser.cjs, RANKS)`,
    severity: 'error',
    from: { path: folder(name) },
    to: { path: `^src/(${forbidden.join('|')})/` },
  };
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'A module must not import itself through others: the order in which they run would depend on who came first. ' +
        "A type-only import is erased at build time, so a command's run.ts may take its options type from its own index.ts, which loads it lazily.",
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'folder-without-rank',
      comment:
        'Every folder of src/ takes a place in RANKS (.dependency-cruiser.cjs), so that folders cannot import each other in circles.',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: `^src/(${allFolders.join('|')})/` },
      to: {},
    },
    {
      name: 'core-imports-nothing',
      comment: 'src/core/ is the base layer: every folder may import it and it imports nothing else of rfs.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'sandbox-imports-shared-and-core',
      comment: 'The sandbox is the service, not the client: it imports only src/shared/, src/core/ and itself.',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: '^src/(sandbox|shared|core)/' },
    },
    {
      name: 'commands-apart',
      comment:
        'A command never imports another noun: what two commands share belongs in a lower folder ' +
        '(or in the files at the top of src/commands/ that every command uses).',
      severity: 'error',
      from: { path: '^src/commands/([^/]+)/' },
      to: { path: '^src/commands/[^/]+/', pathNot: '^src/commands/$1/' },
    },
    {
      name: 'verbs-apart',
      comment:
        "A verb's folder (src/commands/<noun>/<verb>/) imports nothing of its sibling verbs; " +
        "what they share sits in the noun's folder beside them.",
      severity: 'error',
      from: { path: '^src/commands/([^/]+)/([^/]+)/' },
      to: { path: '^src/commands/$1/[^/]+/', pathNot: '^src/commands/$1/$2/' },
    },
    {
      name: 'noun-imports-verb-index',
      comment: "A noun's own files reach a verb only through its index.ts (the declaration), never its run.ts or helpers.",
      severity: 'error',
      from: { path: '^src/commands/([^/]+)/[^/]+$' },
      to: { path: '^src/commands/$1/[^/]+/', pathNot: '^src/commands/$1/[^/]+/index\\.ts$' },
    },
    {
      name: 'declarations-stay-cheap',
      comment:
        "A command's index.ts is loaded for every --help, completion and parse (ARCHITECTURE.md, A command): " +
        'it imports commander, the declaration helpers beside it, the base layer, and the few constants its ' +
        "help shows (the API's vocabulary, the settings' names, the sandbox's defaults, the completion hook's " +
        'name). Its code is reached only by a dynamic import.',
      severity: 'error',
      from: { path: '^src/commands/.+/index\\.ts$' },
      to: {
        dynamic: false,
        dependencyTypesNot: ['core'],
        pathNot: [
          '(^|/)node_modules/(@commander-js/extra-typings|commander)/',
          '^src/commands/(define|choices|webhook-secret|flags|context)\\.ts$',
          '^src/commands/deliveries/filter-flags\\.ts$',
          '^src/commands/.+/index\\.ts$',
          '^src/core/',
          '^src/shared/vocabulary\\.ts$',
          '^src/shared/api-limits\\.ts$',
          '^src/config/settings\\.ts$',
          '^src/sandbox/config\\.ts$',
          '^src/completion/hook\\.ts$',
        ],
      },
    },
    {
      name: 'shared-command-files-import-no-command',
      comment: 'The files at the top of src/commands/ (the command context, flag helpers) are used by commands, so they import none.',
      severity: 'error',
      from: { path: '^src/commands/[^/]+$' },
      to: { path: '^src/commands/[^/]+/' },
    },
    ...layerRules,
  ],
  options: {
    // Type-only imports count: a type from a higher layer ties the two folders together just the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|completions|node_modules)/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
