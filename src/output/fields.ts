// Reading fields that api.md marks "not shown" (webhook and delivery records): whatever the
// server sent, shown as text, or empty when it sent nothing usable.
export function field(record: object, name: string): string {
  const value = (record as Record<string, unknown>)[name];
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
