// For tests that check a writer fsyncs (src/core/atomic-write.ts): fs.promises with an open()
// whose file handles record their path in `synced` when sync() is called (`datasync <path>` for
// datasync()). It imports no fs
// itself, so a vi.mock('node:fs') factory can use it on the real module it was handed.
type Promises = typeof import('node:fs').promises;

export function promisesRecordingSyncs(real: Promises, synced: string[]): Promises {
  return {
    ...real,
    open: async (...args: Parameters<Promises['open']>) => {
      const [path] = args;
      const handle = await real.open(...args);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        synced.push(String(path));
        await sync();
      };
      const datasync = handle.datasync.bind(handle);
      handle.datasync = async () => {
        synced.push(`datasync ${String(path)}`);
        await datasync();
      };
      return handle;
    },
  };
}
