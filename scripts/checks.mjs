// Writes the checks of the API's answers (and of the config file) as plain functions, from the
// zod schemas that stay their one source: src/shared/schemas.ts → src/shared/answer-checks.generated.ts,
// src/config/stored-config.ts → src/config/stored-config.generated.ts. One page of `recordings
// list` then checks its answer, every field as api.md says, without loading zod (ARCHITECTURE.md,
// "How rfs starts"); zod stays for what is checked off that path (user input, the sync journal).
//
// The files are committed, not made at build time: vitest and tsc read src/ without a build,
// and a schema's change shows in review as the change of its check. `node scripts/checks.mjs`
// writes them; `npm run build` refuses stale ones, and test/build/generated-checks.test.ts
// compares them with a fresh generation.
//
// The generator walks each schema's definition (`_zod.def`) and knows zod's semantics for the
// kinds the schemas use (object, array, record, string, int, boolean, enum, optional, nullable,
// default, lazy, union, unknown and their checks); anything else stops it with the kind's name.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What is generated from where: the schemas (exported names) and the functions their refinements call. */
export const TARGETS = [
  {
    source: 'src/shared/schemas.ts',
    output: 'src/shared/answer-checks.generated.ts',
    runtime: './check-runtime.js',
    shapes: [
      'RecordingList',
      'RecordingResponse',
      'FilingResponse',
      'WebhookCreateResponse',
      'WebhookList',
      'DeliveryList',
      'ReplayResponse',
      'ProblemDetails',
      'AnyList',
    ],
    functions: { isIsoInstant: './iso-time.js' },
  },
  {
    source: 'src/config/stored-config.ts',
    output: 'src/config/stored-config.generated.ts',
    runtime: '../shared/check-runtime.js',
    shapes: ['StoredConfig'],
    functions: {},
  },
];

const ROOT = new URL('../', import.meta.url);

/**
 * The text of one generated file. `schemas` is the source module's namespace (imported by vitest
 * in the staleness test, or bundled by esbuild here): the same zod objects either way.
 */
export function generate(target, schemas) {
  const walks = new Map();
  const bodies = [];
  const usedRuntime = new Set(['run', 'type Path', 'type CheckIssue', 'type Check']);
  const usedFunctions = new Set();
  const sourceName = target.source.split('/').pop().replace(/\.ts$/, '.js');

  const need = (name) => usedRuntime.add(name);
  const lit = (value) => JSON.stringify(value);

  const byBody = new Map();
  const named = new Map();
  const building = new Set();

  /** A module-level constant of `type` holding `value`, one per distinct value. */
  function constant(prefix, type, value) {
    const text = `${type} = ${value}`;
    let name = named.get(text);
    if (!name) {
      name = `${prefix}${named.size}`;
      named.set(text, name);
      bodies.push(`const ${name}: ${text};`);
    }
    return name;
  }

  /** The name of the walk function of `schema`: one per distinct body, however many schemas share it. */
  function walkOf(schema) {
    const known = walks.get(schema);
    if (known) return known;
    const def = schema._zod.def;
    if (def.type === 'lazy') return walkOf(schema._zod.innerType);
    if (building.has(schema)) throw new Error('checks.mjs: no generator for a recursive schema');
    building.add(schema);
    const body = bodyOf(schema, def)
      .map((l) => `  ${l}`)
      .join('\n');
    building.delete(schema);
    let name = byBody.get(body);
    if (!name) {
      name = `w${byBody.size}`;
      byBody.set(body, name);
      bodies.push(`function ${name}(v: unknown, p: Path, out: CheckIssue[]): unknown {\n${body}\n}`);
    }
    walks.set(schema, name);
    return name;
  }

  /**
   * The checks of a value `x` after its type's own parse, as zod's runChecks runs them: a check
   * is skipped once an issue aborts, but a length check decides for itself (zod's `when`).
   */
  function withChecks(parse, checks, x = 'v', first = []) {
    const all = [...first, ...checks.map((check) => checkOf(check._zod.def, x))];
    if (all.length === 0) return parse;
    need('aborted');
    const lines = ['const s = out.length;', ...parse, 'let ab = aborted(out, s);'];
    for (const { when, test } of all) {
      if (when) {
        need('explicitlyAborted');
        lines.push(`if (!explicitlyAborted(out, s) && ${when}) {`);
      } else lines.push('if (!ab) {');
      lines.push(
        '  const c = out.length;',
        ...[test].flat().map((t) => `  ${t}`),
        '  if (!ab && out.length !== c) ab = aborted(out, c);',
        '}',
      );
    }
    return lines;
  }

  function checkOf(cdef, x) {
    need('push');
    if (cdef.when && cdef.check !== 'min_length') throw new Error(`checks.mjs: no generator for a ${cdef.check} check's own "when"`);
    const keep = `continue: ${!cdef.abort}`;
    switch (cdef.check) {
      case 'min_length':
        need('hasLength');
        need('lengthOf');
        return {
          when: `hasLength(${x})`,
          test: `if (lengthOf(${x}, ${cdef.minimum}) < ${cdef.minimum}) push(out, p, { code: 'too_small', origin: Array.isArray(${x}) ? 'array' : typeof ${x} === 'string' ? 'string' : 'unknown', minimum: ${cdef.minimum}, inclusive: true, input: ${x}, ${keep} });`,
        };
      case 'greater_than':
        return {
          test: `if (!((${x} as number) ${cdef.inclusive ? '>=' : '>'} ${cdef.value})) push(out, p, { code: 'too_small', origin: 'number', minimum: ${cdef.value}, inclusive: ${cdef.inclusive}, input: ${x}, ${keep} });`,
        };
      case 'string_format':
        if (cdef.format !== 'regex') throw new Error(`checks.mjs: no generator for the string format ${cdef.format}`);
        return {
          test: `if (!${cdef.pattern.toString()}.test(${x} as string)) push(out, p, { code: 'invalid_format', origin: 'string', format: 'regex', pattern: ${lit(cdef.pattern.toString())}, input: ${x}, ${keep}${customMessage(cdef)} });`,
        };
      case 'custom': {
        const fn = cdef.fn;
        if (!target.functions[fn.name])
          throw new Error(`checks.mjs: a refinement calls ${fn.name || 'an unnamed function'}: add it to the target's functions`);
        if (cdef.path?.length) throw new Error('checks.mjs: no generator for a refinement with a path');
        usedFunctions.add(fn.name);
        return { test: `if (!${fn.name}(${x} as never)) push(out, p, { code: 'custom', input: ${x}, ${keep}${customMessage(cdef)} });` };
      }
      default:
        throw new Error(`checks.mjs: no generator for the check ${cdef.check}`);
    }
  }

  function customMessage(cdef) {
    if (!cdef.error) return '';
    const message = cdef.error({ code: 'custom' });
    if (typeof message !== 'string') throw new Error('checks.mjs: a check whose message is not a fixed text');
    return `, message: ${lit(message)}`;
  }

  function bodyOf(schema, def) {
    const checks = def.checks ?? [];
    switch (def.type) {
      case 'string':
        need('push');
        return [
          ...withChecks(["if (typeof v !== 'string') push(out, p, { code: 'invalid_type', expected: 'string', input: v });"], checks),
          'return v;',
        ];
      case 'number': {
        need('push');
        const parse = [
          "if (typeof v !== 'number' || !Number.isFinite(v)) push(out, p, { code: 'invalid_type', expected: 'number', input: v });",
        ];
        const first = [];
        if (schema._zod.traits.has('$ZodCheck')) {
          // z.int(): the schema is its own first check (zod's $ZodNumberFormat).
          if (def.format !== 'safeint') throw new Error(`checks.mjs: no generator for the number format ${def.format}`);
          first.push({
            test: [
              "if (!Number.isInteger(v)) push(out, p, { code: 'invalid_type', expected: 'int', format: 'safeint', input: v, continue: false });",
              "else if ((v as number) > Number.MAX_SAFE_INTEGER) push(out, p, { code: 'too_big', origin: 'int', maximum: Number.MAX_SAFE_INTEGER, inclusive: true, input: v, continue: true });",
              "else if ((v as number) < Number.MIN_SAFE_INTEGER) push(out, p, { code: 'too_small', origin: 'int', minimum: Number.MIN_SAFE_INTEGER, inclusive: true, input: v, continue: true });",
            ],
          });
        } else if (def.format) throw new Error(`checks.mjs: no generator for the number format ${def.format}`);
        return [...withChecks(parse, checks, 'v', first), 'return v;'];
      }
      case 'boolean':
        need('push');
        if (checks.length) throw new Error('checks.mjs: no generator for checks on a boolean');
        return ["if (typeof v !== 'boolean') push(out, p, { code: 'invalid_type', expected: 'boolean', input: v });", 'return v;'];
      case 'enum': {
        need('push');
        if (checks.length) throw new Error('checks.mjs: no generator for checks on an enum');
        const numeric = Object.values(def.entries).filter((v) => typeof v === 'number');
        const values = Object.entries(def.entries)
          .filter(([k]) => numeric.indexOf(+k) === -1)
          .map(([, v]) => v);
        const set = constant('E', 'readonly unknown[]', lit(values));
        return [`if (!${set}.includes(v)) push(out, p, { code: 'invalid_value', values: ${set}, input: v });`, 'return v;'];
      }
      case 'unknown':
        return ['return v;'];
      case 'nullable':
        return [`return v === null ? null : ${walkOf(def.innerType)}(v, p, out);`];
      case 'optional':
        if (def.innerType._zod.optin === 'defaulted') return [`return ${walkOf(def.innerType)}(v, p, out);`];
        return [`return v === undefined ? undefined : ${walkOf(def.innerType)}(v, p, out);`];
      case 'nonoptional':
        need('push');
        return [
          'const s = out.length;',
          `const r = ${walkOf(def.innerType)}(v, p, out);`,
          "if (out.length === s && r === undefined) push(out, p, { code: 'invalid_type', expected: 'nonoptional', input: r });",
          'return r;',
        ];
      case 'default': {
        const value = lit(def.defaultValue);
        if (value === undefined) throw new Error('checks.mjs: a default that is not JSON');
        return [
          `if (v === undefined) return ${value};`,
          `const r = ${walkOf(def.innerType)}(v, p, out);`,
          `return r === undefined ? ${value} : r;`,
        ];
      }
      case 'union':
        need('union');
        return [`return union([${def.options.map(walkOf).join(', ')}], v, p, out);`];
      case 'array': {
        need('push');
        const element = walkOf(def.element);
        const parse = [
          "if (!Array.isArray(v)) push(out, p, { code: 'invalid_type', expected: 'array', input: v });",
          'else {',
          '  const a: unknown[] = new Array(v.length);',
          '  for (let i = 0; i < v.length; i++) {',
          '    p.push(i);',
          `    a[i] = ${element}(v[i], p, out);`,
          '    p.pop();',
          '  }',
          '  o = a;',
          '}',
        ];
        return ['let o: unknown = v;', ...withChecks(parse, checks, 'o'), 'return o;'];
      }
      case 'record': {
        need('push');
        need('isObject');
        const key = def.keyType._zod.def;
        if (key.type !== 'string' || key.checks?.length || def.mode === 'loose')
          throw new Error('checks.mjs: no generator for a record keyed by other than plain strings');
        if (checks.length) throw new Error('checks.mjs: no generator for checks on a record');
        const value = walkOf(def.valueType);
        return [
          "if (!isObject(v)) { push(out, p, { code: 'invalid_type', expected: 'record', input: v }); return v; }",
          'const o: Record<string, unknown> = {};',
          'for (const k of Object.keys(v)) {',
          "  if (k === '__proto__') continue;",
          '  p.push(k);',
          `  o[k] = ${value}(v[k], p, out);`,
          '  p.pop();',
          '}',
          'return o;',
        ];
      }
      case 'object': {
        need('push');
        need('isObject');
        need('property');
        if (checks.length) throw new Error('checks.mjs: no generator for checks on an object');
        const shape = def.shape;
        const keys = Object.keys(shape).filter((k) => k !== '__proto__');
        if (Object.getOwnPropertySymbols(shape).length) throw new Error('checks.mjs: no generator for symbol keys');
        const lines = [
          "if (!isObject(v)) { push(out, p, { code: 'invalid_type', expected: 'object', input: v }); return v; }",
          'const o: Record<string, unknown> = {};',
        ];
        for (const k of keys) {
          const field = shape[k];
          lines.push(`property(o, v, ${lit(k)}, ${walkOf(field)}, ${lit(field._zod.optin)}, ${lit(field._zod.optout)}, p, out);`);
        }
        const catchall = def.catchall?._zod.def.type;
        const set = catchall === undefined ? '' : constant('K', 'ReadonlySet<string>', `new Set(${lit(keys)})`);
        if (catchall === 'unknown') {
          lines.push('for (const k in v) {', `  if (${set}.has(k) || k === '__proto__') continue;`, '  o[k] = v[k];', '}');
        } else if (catchall === 'never') {
          lines.push(
            'const unknown: string[] = [];',
            `for (const k in v) if (!${set}.has(k)) unknown.push(k);`,
            "if (unknown.length) push(out, p, { code: 'unrecognized_keys', keys: unknown, input: v, continue: true });",
          );
        } else if (catchall !== undefined) throw new Error(`checks.mjs: no generator for an object whose other keys are ${catchall}`);
        lines.push('return o;');
        return lines;
      }
      default:
        throw new Error(`checks.mjs: no generator for the zod type ${def.type}`);
    }
  }

  const exports = [];
  for (const shape of target.shapes) {
    const schema = schemas[shape];
    if (!schema?._zod) throw new Error(`checks.mjs: ${target.source} exports no schema ${shape}`);
    exports.push(
      `/** ${shape} of ${target.source}, checked as zod's safeParse checks it. */\nexport const ${shape}: Check<z.infer<typeof S.${shape}>> = (value) => run(${walkOf(schema)}, value);`,
    );
  }

  const runtime = [...usedRuntime].sort((a, b) => a.replace('type ', '').localeCompare(b.replace('type ', '')));
  const header = [
    `// Generated by scripts/checks.mjs from ${target.source}: do not edit (\`node scripts/checks.mjs\` writes it again).`,
    "// Plain functions that check as zod's safeParse does, with the same issues, so the path of one page runs",
    '// no schema library (scripts/checks.mjs says why; test/property/generated-checks.test.ts holds them to zod).',
    "import type * as z from 'zod/mini';",
    `import { ${runtime.join(', ')} } from '${target.runtime}';`,
    ...[...usedFunctions].sort().map((fn) => `import { ${fn} } from '${target.functions[fn]}';`),
    `import type * as S from './${sourceName}';`,
  ];
  return `${header.join('\n')}\n\n${bodies.join('\n\n')}\n\n${exports.join('\n\n')}\n`;
}

/** The schema modules, bundled with their zod by esbuild and imported: Node runs no TypeScript. */
async function loadSources() {
  const { build } = await import('esbuild');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const work = await mkdtemp(join(tmpdir(), 'rfs-checks-'));
  try {
    const entryPoints = Object.fromEntries(TARGETS.map((t, i) => [`t${i}`, fileURLToPath(new URL(t.source, ROOT))]));
    await build({ entryPoints, outdir: work, bundle: true, format: 'esm', platform: 'node', splitting: true, logLevel: 'warning' });
    return Promise.all(TARGETS.map((_, i) => import(pathToFileURL(join(work, `t${i}.js`)).href)));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The generated files that differ from what the schemas give now. */
export async function staleChecks() {
  const sources = await loadSources();
  const stale = [];
  for (const [i, target] of TARGETS.entries()) {
    const text = generate(target, sources[i]);
    const file = new URL(target.output, ROOT);
    const now = await readFile(file, 'utf8').catch(() => undefined);
    if (now !== text) stale.push({ target, text, file });
  }
  return stale;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { target, text, file } of await staleChecks()) {
    await writeFile(file, text);
    process.stdout.write(`wrote ${target.output}\n`);
  }
}
