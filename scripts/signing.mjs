// The signature of a release (../shared/spec/release.md, "Single executables"): SHA256SUMS signed
// with minisign (Debian's `minisign`), verifiable offline with the public key kept in the
// repository (minisign.pub, shown in docs/install.md).
//
// The release key's secret half is never in the repository: `npm run release` reads it from the
// environment, RFS_MINISIGN_SECRET_KEY holding the text of the secret key file, unencrypted
// (`minisign -G -W`: a release runs unattended; the CI secret store is its protection). It must
// be the key of minisign.pub, or the release stops. Without it (a contributor's build, CI), the
// release makes a throwaway key, signs with it, and leaves its public half beside the release
// folder (throwawayPublicKey) for the release check, which verifies with it and says so: such a
// build is not a publishable release, and its notes say that too.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export const SIGNATURE = 'SHA256SUMS.minisig';
export const PUBLIC_KEY = 'minisign.pub';
export const SECRET_KEY_VARIABLE = 'RFS_MINISIGN_SECRET_KEY';

/** Where a release without the release key leaves the throwaway key's public half. */
export const throwawayPublicKey = (releaseDir) => join(dirname(releaseDir), `${basename(releaseDir)}.throwaway-minisign.pub`);

function minisign(args, { cwd } = {}) {
  try {
    return execFileSync('minisign', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new Error(`minisign ${args.join(' ')} failed (${error.status ?? error.signal}): ${error.stderr ?? ''}${error.stdout ?? ''}`);
  }
}

/** The base64 key line of a minisign public key file (its second line). */
export const keyLine = (text) => text.trim().split('\n').at(-1).trim();

/** The key ID minisign prints, from a public key line: bytes 2–9, little-endian, in hex. */
export function keyId(line) {
  return Buffer.from(line, 'base64').subarray(2, 10).reverse().toString('hex').toUpperCase();
}

/**
 * The key that signs this release: the release key from the environment, checked against the
 * repository's public key, or a throwaway key made in `work` (its public half copied to
 * `throwaway`). Returns the secret key file, the public key file, whether it is the release key,
 * its ID and its public key line (for `minisign -P`).
 */
export async function releaseKey({ work, root, throwaway, env = process.env }) {
  const dir = join(work, 'minisign');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const secretKeyFile = join(dir, 'release.key');
  const publicKeyFile = join(dir, 'release.pub');
  const secret = env[SECRET_KEY_VARIABLE];
  if (secret !== undefined && secret.trim() !== '') {
    await writeFile(secretKeyFile, `${secret.trim()}\n`, { mode: 0o600 });
    // -R recreates the public key from the secret one: it must be the repository's.
    minisign(['-R', '-s', secretKeyFile, '-p', publicKeyFile]);
    const derived = keyLine(await readFile(publicKeyFile, 'utf8'));
    const kept = keyLine(await readFile(join(root, PUBLIC_KEY), 'utf8'));
    if (derived !== kept) {
      throw new Error(
        `${SECRET_KEY_VARIABLE} holds the key ${keyId(derived)}, not the key ${keyId(kept)} of ${PUBLIC_KEY}: no release is signed with a key users cannot verify`,
      );
    }
    // A throwaway key of an earlier build of this version no longer applies.
    await rm(throwaway, { force: true });
    return { secretKeyFile, publicKeyFile, release: true, id: keyId(derived), line: derived };
  }
  minisign(['-G', '-W', '-f', '-p', publicKeyFile, '-s', secretKeyFile]);
  await copyFile(publicKeyFile, throwaway);
  const line = keyLine(await readFile(publicKeyFile, 'utf8'));
  return { secretKeyFile, publicKeyFile: throwaway, release: false, id: keyId(line), line };
}

/** Signs dir/SHA256SUMS into dir/SHA256SUMS.minisig; the trusted comment is signed with it. */
export async function signSums(dir, key, trustedComment) {
  minisign(['-S', '-s', key.secretKeyFile, '-m', 'SHA256SUMS', '-x', SIGNATURE, '-t', trustedComment], { cwd: dir });
  if (!existsSync(join(dir, SIGNATURE))) throw new Error(`minisign wrote no ${SIGNATURE}`);
}

/**
 * `minisign -V` of `file` against `signature` with the public key file `publicKey`: the trusted
 * comment when the signature holds, an Error (minisign's words) when not.
 */
export function verify(file, signature, publicKey) {
  const out = minisign(['-V', '-m', file, '-x', signature, '-p', publicKey]);
  const comment = out.match(/^Trusted comment: (.*)$/m);
  if (comment === null) throw new Error(`minisign -V printed no trusted comment: ${out}`);
  return comment[1];
}
