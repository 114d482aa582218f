// The page's files (index.html, app.js, app.css), made by the build (scripts/inspector-page.mjs)
// into dist/inspector/ and read from there when --inspect starts the server: nothing of the
// page is loaded otherwise. Found beside the program that runs (bin/rfs.js, or a single
// executable built into dist/), or inside the single executable as its assets
// (scripts/package.mjs adds them as `inspector/<name>`).
import { readFile } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const ASSET_NAMES = ['index.html', 'app.js', 'app.css'] as const;
export type AssetName = (typeof ASSET_NAMES)[number];

/** The page's files are the single executable's own assets, not files of a folder. */
const IN_EXECUTABLE = 'node:sea';

function seaAsset(name: string): Buffer | undefined {
  const sea = process.getBuiltinModule?.('node:sea') as typeof import('node:sea') | undefined;
  if (sea === undefined || !sea.isSea()) return undefined;
  try {
    return Buffer.from(sea.getRawAsset(`inspector/${name}`) as ArrayBuffer);
  } catch {
    return undefined;
  }
}

/** The folder of the page's files (or the executable that holds them), or undefined when this installation has none. */
export function assetsFolder(entry: string | undefined = process.argv[1], executable: string = process.execPath): string | undefined {
  if (seaAsset('index.html') !== undefined) return IN_EXECUTABLE;
  const starts = [entry, executable].flatMap((file) => {
    if (file === undefined) return [];
    try {
      return [dirname(realpathSync(file))];
    } catch {
      return [];
    }
  });
  for (const start of starts) {
    for (const candidate of [join(start, 'inspector'), join(start, '..', 'dist', 'inspector')]) {
      if (existsSync(join(candidate, 'index.html'))) return candidate;
    }
  }
  return undefined;
}

/** The page's files, read once. */
export async function readAssets(folder: string): Promise<Record<AssetName, Buffer>> {
  if (folder === IN_EXECUTABLE)
    return Object.fromEntries(ASSET_NAMES.map((name) => [name, seaAsset(name) ?? Buffer.alloc(0)])) as Record<AssetName, Buffer>;
  const read = await Promise.all(ASSET_NAMES.map((name) => readFile(join(folder, name))));
  return Object.fromEntries(ASSET_NAMES.map((name, i) => [name, read[i]])) as Record<AssetName, Buffer>;
}
