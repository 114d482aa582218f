// The inspector's page (src/inspector/page/: cli.md, webhooks listen --inspect) as three static
// files in dist/inspector/: index.html, app.css, and app.js bundled by esbuild from plain
// TypeScript (no CDN, nothing fetched at run time). The server (src/inspector/server.ts) reads
// them only when --inspect starts it. Called by scripts/build.mjs; also run alone:
// `node scripts/inspector-page.mjs`.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const page = new URL('../src/inspector/page/', import.meta.url);
const out = new URL('../dist/inspector/', import.meta.url);

export async function buildInspectorPage() {
  await mkdir(out, { recursive: true });
  await build({
    entryPoints: [fileURLToPath(new URL('app.ts', page))],
    outfile: fileURLToPath(new URL('app.js', out)),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  await copyFile(new URL('index.html', page), new URL('index.html', out));
  await copyFile(new URL('app.css', page), new URL('app.css', out));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildInspectorPage();
