// Rendered Kubernetes objects: checked field by field by the tests.
// biome-ignore lint/suspicious/noExplicitAny: objects as kubectl renders them
type K8sObject = any;
export const DEPLOY: string;
export const ALERT_RULES: string;
export const PROMETHEUS_RULE: string;
export const KUSTOMIZATIONS: string[];
export const WORKSPACES: string;
export function prometheusRule(rules?: string): string;
export function render(dir: string): K8sObject[];
export function renderFleet(list?: string): K8sObject[];
export function validate(objects: K8sObject[]): number;
