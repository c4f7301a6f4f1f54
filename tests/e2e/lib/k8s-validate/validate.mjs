// SPDX-License-Identifier: MIT
// k8s-validate.mjs MODULES FILE...: every YAML document of each FILE checked
// as a Kubernetes object against its kind's OpenAPI schema, offline, by npm's
// kubernetes-models (MODULES: the node_modules that holds it and js-yaml;
// cluster.sh installs them).  Prints one line a document, "ok FILE KIND NAME"
// or "invalid FILE KIND NAME: the errors"; then, for the DaemonSet, the facts
// cluster.sh checks, one "fact NAME VALUE" a line.  Exit 0 when every
// document is valid, 1 otherwise, 2 when it cannot check at all.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [modulesArg, ...files] = process.argv.slice(2);
const modules = modulesArg && resolve(modulesArg);
if (!modulesArg || files.length === 0) {
  console.error("usage: k8s-validate.mjs MODULES FILE...");
  process.exit(2);
}
const require = createRequire(join(modules, "package.json"));
const yaml = require("js-yaml");
const modelRoot = join(modules, "node_modules", "kubernetes-models");

// apiVersion "apps/v1" -> kubernetes-models/apps/v1/KIND.js, "v1" -> v1/KIND.js
async function modelOf(apiVersion, kind) {
  if (!/^[a-z0-9.]+\/v[0-9a-z]+$|^v[0-9a-z]+$/.test(apiVersion) || !/^[A-Z][A-Za-z]+$/.test(kind)) {
    return null;
  }
  try {
    const mod = await import(pathToFileURL(join(modelRoot, apiVersion, `${kind}.js`)).href);
    return mod[kind] ?? null;
  } catch {
    return null;
  }
}

let bad = 0;
const facts = [];
for (const file of files) {
  let docs;
  try {
    docs = yaml.loadAll(readFileSync(file, "utf8")).filter((d) => d !== null);
  } catch (e) {
    console.log(`invalid ${file} - -: not YAML: ${e.message.split("\n")[0]}`);
    bad++;
    continue;
  }
  for (const doc of docs) {
    const kind = doc?.kind ?? "-";
    const name = doc?.metadata?.name ?? "-";
    const Model = await modelOf(doc?.apiVersion ?? "", kind);
    if (!Model) {
      console.log(`invalid ${file} ${kind} ${name}: no schema for apiVersion ${doc?.apiVersion} kind ${kind}`);
      bad++;
      continue;
    }
    try {
      new Model(doc).validate();
      console.log(`ok ${file} ${kind} ${name}`);
    } catch (e) {
      const errors = (e.errors ?? []).map((x) => `${x.instancePath} ${x.message}`).join("; ");
      console.log(`invalid ${file} ${kind} ${name}: ${errors || e.message}`);
      bad++;
      continue;
    }
    if (kind === "Namespace") facts.push(["namespace", name]);
    if (kind === "DaemonSet") {
      const pod = doc.spec.template.spec;
      const c = pod.containers[0];
      const terms = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
      for (const t of terms) {
        for (const m of t.matchExpressions ?? []) facts.push(["affinity-term", `${m.key} ${m.operator} ${(m.values ?? []).join(",")}`]);
      }
      facts.push(["affinity-terms", terms.length]);
      facts.push(["daemonset-namespace", doc.metadata.namespace]);
      facts.push(["image", c.image]);
      facts.push(["args", (c.args ?? []).join(" ")]);
      facts.push(["privileged", c.securityContext?.privileged]);
      facts.push(["service-account-token", pod.automountServiceAccountToken]);
      facts.push(["readiness", (c.readinessProbe?.exec?.command ?? []).join(" ")]);
      for (const m of c.volumeMounts ?? []) {
        const v = (pod.volumes ?? []).find((x) => x.name === m.name);
        facts.push(["mount", `${v?.hostPath?.path ?? "not-hostPath"} ${m.mountPath}`]);
      }
      for (const e of c.env ?? []) facts.push(["env", `${e.name}=${e.value}`]);
    }
  }
}
for (const [k, v] of facts) console.log(`fact ${k} ${v}`);
process.exit(bad ? 1 : 0);
