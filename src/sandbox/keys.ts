// The sandbox's API keys. They are derived from the seed (so --seed gives the same keys on every
// start), handed out once at start, and then held only as SHA-256 hashes (sandbox.md).
import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX } from '../shared/schemas.js';
import { base62 } from '../shared/ids.js';
import { derive } from './random.js';
import { SCOPES, type Scope, type WorkspaceId } from './types.js';

export interface SandboxKeys {
  admin: string;
  readOnly: string;
  writeOnly: string;
  webhooks: string;
  otherWorkspace: string;
  noSubscription: string;
  revoked: string;
}

interface KeySpec {
  name: keyof SandboxKeys;
  workspace: WorkspaceId;
  scopes: readonly Scope[];
  revoked: boolean;
}

const KEY_SPECS: readonly KeySpec[] = [
  { name: 'admin', workspace: 'main', scopes: SCOPES, revoked: false },
  { name: 'readOnly', workspace: 'main', scopes: ['read:recordings'], revoked: false },
  { name: 'writeOnly', workspace: 'main', scopes: ['write:recordings'], revoked: false },
  { name: 'webhooks', workspace: 'main', scopes: ['manage:webhooks'], revoked: false },
  { name: 'otherWorkspace', workspace: 'other', scopes: SCOPES, revoked: false },
  { name: 'noSubscription', workspace: 'starter', scopes: SCOPES, revoked: false },
  { name: 'revoked', workspace: 'main', scopes: SCOPES, revoked: true },
];

export interface KeyEntry {
  name: keyof SandboxKeys;
  workspace: WorkspaceId;
  scopes: ReadonlySet<Scope>;
  revoked: boolean;
  hash: Buffer;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export class KeyRing {
  private readonly entries: KeyEntry[];

  private constructor(entries: KeyEntry[]) {
    this.entries = entries;
  }

  /** Makes the keys; the plain values are returned once and not kept. */
  static create(material: Buffer): { ring: KeyRing; keys: SandboxKeys } {
    const keys = {} as SandboxKeys;
    const entries: KeyEntry[] = [];
    for (const spec of KEY_SPECS) {
      const key = `${API_KEY_PREFIX}${base62(derive(material, `api-key:${spec.name}`), 32)}`;
      keys[spec.name] = key;
      entries.push({ name: spec.name, workspace: spec.workspace, scopes: new Set(spec.scopes), revoked: spec.revoked, hash: sha256(key) });
    }
    return { ring: new KeyRing(entries), keys };
  }

  /** The entry for a presented key, revoked ones included; null when it matches none. */
  find(key: string): KeyEntry | null {
    const hash = sha256(key);
    let found: KeyEntry | null = null;
    // Every entry is compared, in constant time, so timing says nothing about near misses.
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.hash, hash)) found = entry;
    }
    return found;
  }

  scopesOf(name: keyof SandboxKeys): readonly Scope[] {
    return [...(this.entries.find((e) => e.name === name)?.scopes ?? [])];
  }
}
