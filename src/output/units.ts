// Durations and sizes as people read them (cli.md, Output: `8m 38s`, `7.9 MB`); exact numbers
// stay in `-o json`.

/** Seconds as `45s`, `8m 38s`, `1h 2m 5s`; zero units inside are left out (`2h 5s`). */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '-';
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const parts: string[] = [];
  if (h > 0) parts.push(`${h}h`);
  if (m > 0) parts.push(`${m}m`);
  if (s > 0 || parts.length === 0) parts.push(`${s}s`);
  return parts.join(' ');
}

const SIZE_UNITS = ['KB', 'MB', 'GB', 'TB'] as const;

/** Bytes in units of 1024 with one decimal: `512 B`, `7.9 MB`, `1.2 GB`. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return '-';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes;
  let unit = 'B';
  for (const next of SIZE_UNITS) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  // 1023.96 KB would round to "1024.0 KB": say 1.0 MB instead.
  if (value >= 1023.95 && unit !== 'TB') {
    value /= 1024;
    unit = SIZE_UNITS[SIZE_UNITS.indexOf(unit as (typeof SIZE_UNITS)[number]) + 1] ?? unit;
  }
  return `${value.toFixed(1)} ${unit}`;
}
