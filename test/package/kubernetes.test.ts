// deploy/kubernetes/ as kubectl renders it: the overlay of a second workspace rendered
// by `kubectl kustomize` and every object validated against the Kubernetes and prometheus-operator
// schemas (scripts/kubernetes.mjs), the PrometheusRule made from the one rules file, and the
// commands of docs/kubernetes.md the ones the manifests and the image use.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'kubernetes.mjs');
const DOC = readFileSync(join(ROOT, 'docs', 'kubernetes.md'), 'utf8');
const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
/** What scripts/image.mjs puts in the image: its user, its volume, the metrics port of sync. */
const IMAGE = { user: 65532, volume: '/var/lib/rfs', metricsPort: 9464 };
const STEP_TIMEOUT_MS = 180_000;

// biome-ignore lint/suspicious/noExplicitAny: rendered Kubernetes objects, checked field by field below
type K8sObject = any;

const scratch = mkdtempSync(join(tmpdir(), 'rfs-kubernetes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function script(...args: string[]) {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Each kustomization is rendered once (a render loads every schema: seconds on a busy machine); a copy each time. */
const renders = new Map<string, string>();
function rendered(dir: string): K8sObject[] {
  let json = renders.get(dir);
  if (json === undefined) {
    const result = script('render', dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    json = result.stdout;
    renders.set(dir, json);
  }
  return JSON.parse(json);
}

const byKind = (objects: K8sObject[], kind: string): K8sObject => {
  const found = objects.filter((o) => o.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0];
};

/** The words of a shell command line with single-quoted words, as sh splits it. */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

/** Every line of the doc's sh blocks. */
const docCommands = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? '').trim().split('\n'));

describe('deploy/kubernetes, rendered by kubectl kustomize', () => {
  it(
    'the overlay of a second workspace renders, validates, and is a workspace of its own',
    () => {
      const base = rendered('base');
      const second = rendered('overlays/second-workspace');
      expect(second.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'PersistentVolumeClaim', 'Service', 'ServiceMonitor', 'StatefulSet']);
      // Every name is the workspace's, and none is the first workspace's.
      const baseNames = new Set(base.map((o) => `${o.kind}/${o.metadata.name}`));
      for (const object of second) {
        expect(object.metadata.name).toMatch(/^globex-/);
        expect(baseNames.has(`${object.kind}/${object.metadata.name}`)).toBe(false);
        expect(object.metadata.labels['app.kubernetes.io/instance']).toBe('globex');
      }
      const set = byKind(second, 'StatefulSet');
      const service = byKind(second, 'Service');
      const monitor = byKind(second, 'ServiceMonitor');
      const claim = byKind(second, 'PersistentVolumeClaim');
      const config = byKind(second, 'ConfigMap');
      expect(set.spec.replicas).toBe(1);
      expect(set.spec.serviceName).toBe(service.metadata.name);
      // The Service and the ServiceMonitor select this workspace's pods and Service only.
      const podLabels = set.spec.template.metadata.labels;
      expect(service.spec.selector).toEqual({ 'app.kubernetes.io/name': 'rfs-sync', 'app.kubernetes.io/instance': 'globex' });
      for (const [key, value] of Object.entries(service.spec.selector)) expect(podLabels[key]).toBe(value);
      expect(monitor.spec.selector.matchLabels).toEqual(service.metadata.labels);
      expect(monitor.spec.endpoints[0].port).toBe('metrics');
      // Its own volume, key, provider and command.
      const volumes = set.spec.template.spec.volumes;
      expect(volumes.find((v: K8sObject) => v.name === 'state').persistentVolumeClaim.claimName).toBe(claim.metadata.name);
      expect(claim.spec.accessModes).toEqual(['ReadWriteOncePod']);
      expect(volumes.find((v: K8sObject) => v.name === 'command').configMap.name).toBe(config.metadata.name);
      const [container] = set.spec.template.spec.containers;
      const env = Object.fromEntries(container.env.map((e: K8sObject) => [e.name, e]));
      expect(env.RFS_API_KEY.valueFrom.secretKeyRef).toEqual({ name: 'globex-rfs-sync-key', key: 'RFS_API_KEY' });
      expect(env.RFS_PROVIDER.value).toBe('erp');
      // The same image, of this version, as the first workspace.
      expect(container.image).toBe(byKind(base, 'StatefulSet').spec.template.spec.containers[0].image);
      expect(container.image).toMatch(new RegExp(`:${VERSION.replace(/\./g, '\\.')}$`));
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'the validation refuses what the schemas refuse (a port as a string, a ServiceMonitor interval that is no duration)',
    () => {
      const second = rendered('overlays/second-workspace');
      const set = byKind(second, 'StatefulSet');
      set.spec.template.spec.containers[0].ports[0].containerPort = '9464';
      const file = join(scratch, 'broken.yaml');
      writeFileSync(file, JSON.stringify(set));
      const result = script('validate', file);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('containerPort must be integer');
      const monitor = byKind(second, 'ServiceMonitor');
      monitor.spec.endpoints[0].interval = 'every minute';
      writeFileSync(file, JSON.stringify(monitor));
      expect(script('validate', file).code).toBe(1);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'the PrometheusRule is the rules file of deploy/prometheus, rule for rule',
    () => {
      const [rule] = rendered('monitoring');
      expect(rule.kind).toBe('PrometheusRule');
      const rules = parse(readFileSync(join(ROOT, 'deploy', 'prometheus', 'rfs-sync-alerts.yml'), 'utf8'));
      expect(rule.spec).toEqual(rules);
    },
    STEP_TIMEOUT_MS,
  );
});

describe('docs/kubernetes.md', () => {
  it(
    'its commands are the ones the manifests and the image use',
    () => {
      const base = rendered('base');
      const set = byKind(base, 'StatefulSet');
      const [container] = set.spec.template.spec.containers;
      const env = Object.fromEntries(container.env.map((e: K8sObject) => [e.name, e]));

      // The sync command line, with $(RFS_PROVIDER) as Kubernetes expands it.
      const sync = docCommands.filter((line) => line.startsWith('rfs sync '));
      expect(sync).toHaveLength(1);
      const args = container.args.map((arg: string) => arg.replace('$(RFS_PROVIDER)', env.RFS_PROVIDER.value));
      expect(words(sync[0] ?? '').slice(1)).toEqual(args);
      expect(DOC).toContain(`within the pod's ${set.spec.template.spec.terminationGracePeriodSeconds} s grace period`);

      // Each kubectl apply names a kustomization that renders; each Secret is the one a workspace reads.
      const applied = docCommands.filter((line) => line.startsWith('kubectl apply '));
      expect(applied.length).toBeGreaterThanOrEqual(3);
      for (const line of applied) {
        const path = words(line).at(-1) ?? '';
        expect(path).toMatch(/^deploy\/kubernetes\//);
        rendered(path.replace('deploy/kubernetes/', ''));
      }
      const secrets = docCommands.filter((line) => line.startsWith('kubectl create secret '));
      const second = byKind(rendered('overlays/second-workspace'), 'StatefulSet').spec.template.spec.containers[0];
      const expected = [env.RFS_API_KEY, second.env.find((e: K8sObject) => e.name === 'RFS_API_KEY')].map(
        (e) => `${e.valueFrom.secretKeyRef.name} ${e.valueFrom.secretKeyRef.key}`,
      );
      expect(secrets.map((line) => line.replace(/^.* -n rfs (\S+) --from-literal=([A-Z_]+)=.*$/, '$1 $2'))).toEqual(expected);

      // The image: the archive's name, the volume, the user, the metrics port.
      const copies = docCommands.filter((line) => line.startsWith('skopeo copy '));
      expect(copies[0]).toBe(`skopeo copy --all oci-archive:rfs-${VERSION}-oci.tar docker://registry.example.com/rfs:${VERSION}`);
      expect(container.image.endsWith(`:${VERSION}`)).toBe(true);
      const mounts = Object.fromEntries(container.volumeMounts.map((m: K8sObject) => [m.name, m.mountPath]));
      expect(mounts.state).toBe(IMAGE.volume);
      expect(DOC).toContain(`\`${IMAGE.volume}\``);
      expect(DOC).toContain(`\`${IMAGE.volume}/state\``);
      expect(DOC).toContain(`\`${IMAGE.volume}/config\``);
      expect(set.spec.template.spec.securityContext.runAsUser).toBe(IMAGE.user);
      expect(DOC).toContain(`the user \`rfs\` (${IMAGE.user})`);
      expect(container.ports[0].containerPort).toBe(IMAGE.metricsPort);
      expect(DOC).toContain(`port ${IMAGE.metricsPort}`);
      expect(container.args).toContain(`0.0.0.0:${IMAGE.metricsPort}`);
      expect(container.readinessProbe.httpGet.path).toBe('/healthz');
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    },
    STEP_TIMEOUT_MS,
  );

  it('explains every alert of the rules file', () => {
    const rules = parse(readFileSync(join(ROOT, 'deploy', 'prometheus', 'rfs-sync-alerts.yml'), 'utf8'));
    const alerts = rules.groups.flatMap((group: K8sObject) => group.rules.map((rule: K8sObject) => rule));
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      const row = DOC.split('\n').find((line) => line.startsWith(`| \`${alert.alert}\` |`));
      expect(row, alert.alert).toBeDefined();
      expect(row).toContain(`| ${alert.labels.severity} |`);
    }
    // Nothing unknown either: every alert in the table is a rule.
    const documented = [...DOC.matchAll(/^\| `(Rfs\w+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(alerts.map((a: K8sObject) => a.alert).sort());
  });
});
