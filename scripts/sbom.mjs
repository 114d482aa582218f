// The CycloneDX SBOMs of a release (../shared/spec/release.md, "Single executables"): the npm
// package's comes from `npm sbom`; each executable's and the image's are made here from it, since
// an executable is that package's code bundled into Node's own binary: its components are the
// Node runtime (named, with its version, the npm package it came from and the binary's SHA-256)
// and the npm dependencies bundled into it; the image's add the Debian packages it takes files
// from. scripts/release-check.mjs validates every SBOM against CycloneDX's JSON schema, as the
// CycloneDX project publishes it in @cyclonedx/cyclonedx-library.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export const executableSbomName = (version, platform) => `rfs-${version}-${platform}.cdx.json`;
export const imageSbomName = (version) => `rfs-${version}-oci.cdx.json`;

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Node's runtime as a component: the npm package its binary came from, and that binary's hash. */
function nodeComponent(nodeVersion, nodePackage, nodeBinary) {
  return {
    type: 'platform',
    'bom-ref': `${nodePackage}@${nodeVersion}`,
    name: 'node',
    version: nodeVersion,
    description: `the Node.js runtime the executable is made of (${basename(nodeBinary)} of the npm package ${nodePackage})`,
    licenses: [{ license: { id: 'MIT' } }],
    purl: `pkg:npm/${nodePackage}@${nodeVersion}`,
    hashes: [{ alg: 'SHA-256', content: sha256(nodeBinary) }],
    externalReferences: [{ type: 'website', url: 'https://nodejs.org' }],
  };
}

/**
 * A BOM whose subject is `subject` (an application or a container), made of `own` components and
 * the npm package's (from its `npm sbom`): the package itself and its runtime dependencies.
 */
function compose(npmBom, subject, own, timestamp) {
  const npmRoot = { ...npmBom.metadata.component };
  const npmComponents = npmBom.components ?? [];
  const components = [...own, npmRoot, ...npmComponents];
  const rootRef = npmRoot['bom-ref'];
  const dependencies = [
    { ref: subject['bom-ref'], dependsOn: [...own.map((c) => c['bom-ref']), rootRef] },
    ...own.map((c) => ({ ref: c['bom-ref'], dependsOn: [] })),
    ...(npmBom.dependencies ?? []),
  ];
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.5.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    serialNumber: `urn:uuid:${uuidFrom(subject['bom-ref'])}`,
    version: 1,
    metadata: {
      timestamp,
      lifecycles: [{ phase: 'build' }],
      tools: { components: [{ type: 'application', name: 'scripts/release.mjs', group: 'rfs' }] },
      component: subject,
    },
    components,
    dependencies,
  };
}

/** A UUID made from the subject, so that the same release makes the same SBOM. */
function uuidFrom(text) {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The SBOM of one single executable (`exe`, for `platform`). */
export function executableSbom({ pkg, npmBom, platform, nodeVersion, nodePackage, nodeBinary, exe, timestamp }) {
  const subject = {
    type: 'application',
    'bom-ref': `rfs-${pkg.version}-${platform}`,
    name: 'rfs',
    version: pkg.version,
    description: `${pkg.description}: the single executable for ${platform}`,
    licenses: [{ license: { id: pkg.license } }],
    purl: `pkg:generic/rfs@${pkg.version}?platform=${platform}`,
    hashes: [{ alg: 'SHA-256', content: sha256(exe) }],
  };
  return compose(npmBom, subject, [nodeComponent(nodeVersion, nodePackage, nodeBinary)], timestamp);
}

/**
 * The SBOM of the OCI image: per architecture its Node runtime, and the Debian packages it takes
 * files from (`debs`: paths of the .deb files, named name_version_arch.deb as apt downloads them).
 */
export function imageSbom({ pkg, npmBom, file, nodes, debs, timestamp }) {
  const subject = {
    type: 'container',
    'bom-ref': `rfs-${pkg.version}-oci`,
    name: 'rfs',
    version: pkg.version,
    description: `${pkg.description}: the OCI image (linux/amd64, linux/arm64)`,
    licenses: [{ license: { id: pkg.license } }],
    purl: `pkg:oci/rfs@${encodeURIComponent(`sha256:${sha256(file)}`)}`,
    hashes: [{ alg: 'SHA-256', content: sha256(file) }],
  };
  const own = nodes.map(({ nodeVersion, nodePackage, nodeBinary }) => nodeComponent(nodeVersion, nodePackage, nodeBinary));
  for (const deb of debs) {
    const [name, version, arch] = basename(deb, '.deb').split('_').map(decodeURIComponent);
    own.push({
      type: 'library',
      'bom-ref': `deb:${name}@${version}:${arch}`,
      name,
      version,
      purl: `pkg:deb/debian/${name}@${encodeURIComponent(version)}?arch=${arch}&distro=debian-12`,
      hashes: [{ alg: 'SHA-256', content: sha256(deb) }],
    });
  }
  return compose(npmBom, subject, own, timestamp);
}

/** A validator of CycloneDX 1.x JSON against the schema the CycloneDX project ships. */
export function cyclonedxValidator() {
  const Ajv = require('ajv').default;
  const addFormats = require('ajv-formats').default;
  const schemas = join(dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')), 'res', 'schema');
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // Two formats of JSON Schema that ajv-formats leaves out: an IRI reference holds no white
  // space (RFC 3987), an internationalised e-mail address is local@domain (RFC 6531).
  ajv.addFormat('iri-reference', /^[^\s]*$/u);
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
  // The BOM schema refers to these two by file name, resolved against its own $id.
  for (const name of ['spdx.SNAPSHOT.schema.json', 'jsf-0.82.SNAPSHOT.schema.json']) {
    const schema = JSON.parse(readFileSync(join(schemas, name), 'utf8'));
    ajv.addSchema({ ...schema, $id: `http://cyclonedx.org/schema/${name}` });
  }
  const compiled = new Map();
  return (bom) => {
    const version = bom.specVersion;
    if (!compiled.has(version)) {
      compiled.set(version, ajv.compile(JSON.parse(readFileSync(join(schemas, `bom-${version}.SNAPSHOT.schema.json`), 'utf8'))));
    }
    const validate = compiled.get(version);
    if (validate(bom)) return [];
    return validate.errors.map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  };
}
