// Types of k8s-objects.cjs (what a cluster makes of deploy/k8s).
// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects as parsed YAML
type Obj = any;
export declare const ROOT: string;
export declare function render(dir: string): Obj[];
export declare function imageEnv(dockerfile?: string): Record<string, string>;
export declare function find(objects: Obj[], kind: string, name: string): Obj | undefined;
export declare function dataOf(obj: Obj): Record<string, string> | undefined;
export declare function containerEnv(
  objects: Obj[],
  container: Obj,
  fields?: Record<string, string>,
  image?: Record<string, string>,
): { env: Record<string, string>; from: Record<string, string>; problems: string[] };
export declare function portNumber(container: Obj, port: string | number): number | undefined;
export declare function gatewayProcess(
  container: Obj,
): { kind: 'api' | 'worker' | 'migrate'; args: string[] } | undefined;
export declare function startupIssues(container: Obj, env: Record<string, string>): string[];
