// The page's files (index.html, app.js, app.css), made by the build (scripts/inspector-page.mjs)
// into dist/inspector/ and read from there when --inspect starts the server: nothing of the
// page is loaded otherwise. Found beside the program that runs: bin/rfs.js (both builds),
// dist/main.js, or a single executable built into dist/.
import { readFile } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const ASSET_NAMES = ['index.html', 'app.js', 'app.css'] as const;
export type AssetName = (typeof ASSET_NAMES)[number];

/** The folder of the page's files, or undefined when this installation has none. */
export function assetsFolder(entry: string | undefined = process.argv[1], executable: string = process.execPath): string | undefined {
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
  const read = await Promise.all(ASSET_NAMES.map((name) => readFile(join(folder, name))));
  return Object.fromEntries(ASSET_NAMES.map((name, i) => [name, read[i]])) as Record<AssetName, Buffer>;
}
