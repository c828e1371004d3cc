"""Independent checks of rendered DGD children against hand-written expectations.

The expectations (tests/golden/reference/<model>/<framework>/<target>.yaml) are written
from shared/reference/recipes.md only, never from the recipe data or the renderer; this
module knows nothing of either. It takes the children `dgdctl render -o json` prints (a
v1 List), finds each component's Deployment, reconstructs the command line the container
really runs (plain `python3 -m dynamo.X ...`, `bash -c "<script>" ...` with `exec "$@"`
wrappers, multi-line `bash -lc` scripts with inline `VAR=value` prefixes) and compares,
flag by flag and variable by variable.

Findings are FAIL (the rendered output contradicts the reference, or carries a flag it
does not list) or INFO (what the reference leaves open: ambiguous items, facts worth
seeing). A missing expectation key means "not checked"; every checked item either passes
silently or produces a finding naming the target, the component and the item.
"""

import copy
import json
import os
import re
import shlex
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from recipe_paths import recipe_file  # noqa: E402
from components import deployment_name_ok  # noqa: E402

FAIL = "FAIL"
INFO = "INFO"

SHELLS = {"bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/env bash"}
SEPARATOR_CHARS = "();<>|&\n"


class Findings:
    """Collects findings for one target; `prefix` is `<target>/<component>`."""

    def __init__(self, target):
        self.target = target
        self.items = []

    def fail(self, where, msg):
        self.items.append((FAIL, f"{self.target}/{where}" if where else self.target, msg))

    def info(self, where, msg):
        self.items.append((INFO, f"{self.target}/{where}" if where else self.target, msg))

    @property
    def failures(self):
        return [i for i in self.items if i[0] == FAIL]

    def lines(self, with_info=True):
        return [f"{lvl} {where}: {msg}" for lvl, where, msg in self.items
                if with_info or lvl == FAIL]


# ---------------------------------------------------------------------------- values

_QUANTITY_RE = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$")
_SUFFIX = {None: 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
           "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "k": 10**3, "M": 10**6,
           "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}


def quantity(v):
    """A Kubernetes quantity as a Decimal ('16' == 16 == '16000m'); None when unparsable."""
    if isinstance(v, bool) or v is None:
        return None
    m = _QUANTITY_RE.match(str(v).strip())
    if not m:
        return None
    return Decimal(m.group(1)) * Decimal(_SUFFIX[m.group(2)])


def strict_equal(a, b):
    """Deep equality where bool and number differ (Python's True == 1 is not wanted)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def json_diff(expected, got, path=""):
    """Human-readable differences between two parsed JSON values (first few)."""
    out = []
    if isinstance(expected, dict) and isinstance(got, dict):
        for k in expected:
            if k not in got:
                out.append(f"{path}.{k} missing (expected {json.dumps(expected[k])})")
            else:
                out += json_diff(expected[k], got[k], f"{path}.{k}")
        for k in got:
            if k not in expected:
                out.append(f"{path}.{k} unexpected ({json.dumps(got[k])})")
        return out
    if not strict_equal(expected, got):
        out.append(f"{path or '<value>'} expected {json.dumps(expected)}, got {json.dumps(got)}")
    return out


def scalar_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def scalar_equal(expected, got):
    """Flag / env / config scalar comparison. Numbers compare numerically (0.92 == '0.920'),
    booleans as true/false, everything else as exact text."""
    if isinstance(expected, bool):
        return scalar_text(got).lower() == scalar_text(expected)
    if isinstance(expected, (int, float)):
        try:
            return Decimal(str(got)) == Decimal(str(expected))
        except Exception:  # noqa: BLE001 - any unparsable text is simply unequal
            return False
    return scalar_text(got) == str(expected)


def get_path(obj, dotted):
    """obj at a dotted path; list items by [i]; None when absent."""
    cur = obj
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", dotted):
        if part.startswith("["):
            idx = int(part[1:-1])
            if not isinstance(cur, list) or idx >= len(cur):
                return None
            cur = cur[idx]
        else:
            if not isinstance(cur, dict) or part not in cur:
                return None
            cur = cur[part]
    return cur


# ---------------------------------------------------------------- command reconstruction

class Invocation:
    """What a container runs: the engine argv after `-m <module>`, parsed into flags."""

    def __init__(self):
        self.argv = []          # the full resolved argv of the engine process
        self.module = None      # e.g. dynamo.vllm
        self.flags = {}         # name -> list of occurrences, each a list of values
        self.inline_env = {}    # VAR=value prefixes on the engine command line
        self.script = None      # the shell script text when wrapped
        self.script_exports = {}  # export VAR=value lines in the script (raw text)
        self.notes = []         # how the command line was reconstructed
        self.errors = []


def _shell_tokens(script):
    script = script.replace("\\\r\n", " ").replace("\\\n", " ")
    lex = shlex.shlex(script, posix=True, punctuation_chars=SEPARATOR_CHARS)
    lex.whitespace = " \t\r"
    lex.whitespace_split = True
    return list(lex)


def _split_commands(tokens):
    cmds, cur = [], []
    for t in tokens:
        if t and all(c in SEPARATOR_CHARS for c in t):
            if cur:
                cmds.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        cmds.append(cur)
    return cmds


_ASSIGN_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)


def _runs_module(argv):
    for i, t in enumerate(argv[:-1]):
        if t == "-m" and argv[i + 1].startswith("dynamo."):
            return i
    return None


def parse_flags(tokens):
    """`--a 1 --b --c=x --d 1 2` -> {'--a': [['1']], '--b': [[]], '--c': [['x']], '--d': [['1','2']]}."""
    flags, order = {}, []
    name = None
    for t in tokens:
        if t.startswith("--") and len(t) > 2:
            if "=" in t:
                n, v = t.split("=", 1)
                flags.setdefault(n, []).append([v])
                order.append(n)
                name = None
            else:
                name = t
                flags.setdefault(name, []).append([])
                order.append(name)
        elif name is not None:
            flags[name][-1].append(t)
        else:
            flags.setdefault("<positional>", []).append([t])
    return flags, order


def reconstruct(container, read_file=None):
    """The engine invocation a container runs, from command + args. `read_file(path)`
    returns the text of a script file the container runs (from a ConfigMap), or None."""
    inv = Invocation()
    argv = list(container.get("command") or []) + list(container.get("args") or [])
    if not argv:
        inv.errors.append("container has no command/args (image entrypoint would run)")
        return inv
    # Leading `env VAR=x` is not used by any recipe; shells and python are.
    if os.path.basename(argv[0]) in ("bash", "sh"):
        i = 1
        while i < len(argv) and argv[i].startswith("-") and "c" not in argv[i][1:]:
            i += 1
        if i < len(argv) and not argv[i].startswith("-"):
            # `bash FILE args...`: the file is a wrapper that ends in `exec "$@"`.
            script = read_file(argv[i]) if read_file else None
            dollar_at = argv[i + 1:]
            inv.notes.append(f"shell script file {argv[i]}" + (" (text found)" if script else " (text not rendered)"))
            if script is None:
                argv = dollar_at
        elif i >= len(argv):
            inv.errors.append(f"shell command without -c or script: {argv[:3]}")
            return inv
        elif i + 1 >= len(argv):
            inv.errors.append("shell -c without a script")
            return inv
        else:
            script = argv[i + 1]
            positional = argv[i + 2:]
            dollar_at = positional[1:] if positional else []
            inv.notes.append(f"shell wrapper {argv[0]} {argv[i]} <script>"
                             + (f" with $0={positional[0]!r} and {len(dollar_at)} positional args"
                                if positional else ""))
    else:
        script = None
    if script is not None:
        inv.script = script
        try:
            tokens = _shell_tokens(script)
        except ValueError as e:
            inv.errors.append(f"cannot tokenize shell script: {e}")
            return inv
        engine_cmds = []
        for cmd in _split_commands(tokens):
            if cmd and cmd[0] == "export":
                for t in cmd[1:]:
                    m = _ASSIGN_RE.match(t)
                    if m:
                        inv.script_exports[m.group(1)] = m.group(2)
                continue
            env = {}
            while cmd and cmd[0] in ("exec", "command"):
                cmd = cmd[1:]
            while cmd and _ASSIGN_RE.match(cmd[0]):
                m = _ASSIGN_RE.match(cmd[0])
                env[m.group(1)] = m.group(2)
                cmd = cmd[1:]
            while cmd and cmd[0] == "exec":
                cmd = cmd[1:]
            resolved = []
            for t in cmd:
                if t in ("$@", "${@}"):
                    resolved.extend(dollar_at)
                else:
                    resolved.append(t)
            if _runs_module(resolved) is not None:
                engine_cmds.append((env, resolved))
        if len(engine_cmds) != 1:
            inv.errors.append(f"expected exactly one `python3 -m dynamo.*` command in the script, found {len(engine_cmds)}")
            if not engine_cmds:
                return inv
        inv.inline_env, argv = engine_cmds[0]
    idx = _runs_module(argv)
    if idx is None:
        inv.errors.append(f"no `-m dynamo.*` in the command line: {argv[:4]}")
        return inv
    inv.argv = argv
    inv.module = argv[idx + 1]
    inv.flags, _ = parse_flags(argv[idx + 2:])
    return inv


# ------------------------------------------------------------------------ rendering

def run_render(dgdctl, recipe_file=None, stdin_text=None, cwd=None):
    """`dgdctl render -f FILE|- -o json` -> (items, error)."""
    args = [dgdctl, "render", "-f", recipe_file if recipe_file else "-", "-o", "json"]
    p = subprocess.run(args, input=stdin_text, capture_output=True, text=True, cwd=cwd, timeout=120)
    if p.returncode != 0:
        return None, f"`{' '.join(args)}` exited {p.returncode}: {p.stderr.strip()[:2000]}"
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        return None, f"`{' '.join(args)}` printed invalid JSON: {e}"
    if doc.get("kind") != "List" or not isinstance(doc.get("items"), list):
        return None, f"`{' '.join(args)}` did not print a v1 List"
    return doc["items"], None


def kustomize(folder):
    p = subprocess.run(["kubectl", "kustomize", folder], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None, f"`kubectl kustomize {folder}` exited {p.returncode}: {p.stderr.strip()[:2000]}"
    return p.stdout, None


# ------------------------------------------------------------------------ lookups

LBL_COMPONENT = "nvidia.com/dynamo-component"
LBL_TYPE = "nvidia.com/dynamo-component-type"
LBL_DGD = "nvidia.com/dynamo-graph-deployment-name"


def by_kind(items, kind):
    return [o for o in items if o.get("kind") == kind]


def find_object(items, kind, name):
    for o in items:
        if o.get("kind") == kind and o.get("metadata", {}).get("name") == name:
            return o
    return None


def labels_of(obj):
    return obj.get("metadata", {}).get("labels") or {}


def find_component_deployment(items, name, ctype, f, dgd):
    """The Deployment of component `name` (label nvidia.com/dynamo-component), else the one
    with the component type (reported as a name mismatch)."""
    deps = by_kind(items, "Deployment")
    exact = [d for d in deps if labels_of(d).get(LBL_COMPONENT) == name]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        f.fail(name, f"{len(exact)} Deployments carry {LBL_COMPONENT}={name}")
        return exact[0]
    typed = [d for d in deps if labels_of(d).get(LBL_TYPE) == ctype]
    names = sorted(labels_of(d).get(LBL_COMPONENT, d["metadata"]["name"]) for d in deps)
    if len(typed) == 1:
        f.fail(name, f"component name expected {name!r}, got {labels_of(typed[0]).get(LBL_COMPONENT)!r} "
                     f"(matched by {LBL_TYPE}={ctype}; Service/Deployment names follow the component name)")
        return typed[0]
    f.fail(name, f"no Deployment for component {name!r} (type {ctype}); rendered components: {names}")
    return None


def main_container(dep):
    cs = get_path(dep, "spec.template.spec.containers") or []
    for c in cs:
        if c.get("name") == "main":
            return c
    return cs[0] if cs else None


def env_map(container, f, where):
    out = {}
    for e in container.get("env") or []:
        n = e.get("name")
        if n in out:
            f.fail(where, f"env {n} is set twice")
        out[n] = e.get("value", "") if "valueFrom" not in e else {"valueFrom": e["valueFrom"]}
    return out


# ------------------------------------------------------------------------ checks

def _fmt_values(vals):
    if not vals:
        return "<no value>"
    return " ".join(vals)


def check_flags(inv, effective, exp, f, where):
    flags = inv.flags
    twins = exp.get("flag_env_twins") or {}
    for name, occ in flags.items():
        if name != "<positional>" and len(occ) > 1:
            f.fail(where, f"{name} given {len(occ)} times: {[_fmt_values(v) for v in occ]}")
    if "<positional>" in flags:
        f.fail(where, f"stray positional arguments: {[v[0] for v in flags['<positional>']]}")
    expected = exp.get("flags") or {}
    for name, want in expected.items():
        if name not in flags:
            twin = twins.get(name)
            if twin and twin in effective and env_value_equal(want if not isinstance(want, bool) else "true",
                                                             effective[twin]):
                f.info(where, f"{name} {scalar_text(want)} given as its env twin {twin}={effective[twin]}")
                continue
            shown = "a switch" if want is True else want if isinstance(want, str) else json.dumps(want)
            f.fail(where, f"{name} missing (expected {shown})" + (f" (nor its env twin {twin})" if twin else ""))
            continue
        got = flags[name][-1]
        if want is True:
            if got:
                f.fail(where, f"{name} expected as a switch without value, got {_fmt_values(got)}")
        elif isinstance(want, dict):
            if len(got) != 1:
                f.fail(where, f"{name} expected one JSON value, got {len(got)} values")
                continue
            try:
                parsed = json.loads(got[0])
            except json.JSONDecodeError as e:
                f.fail(where, f"{name} is not valid JSON ({e}): {got[0]}")
                continue
            for d in json_diff(want, parsed):
                f.fail(where, f"{name} {d}")
        elif isinstance(want, list):
            if len(got) != len(want) or not all(scalar_equal(w, g) for w, g in zip(want, got)):
                f.fail(where, f"{name} expected {' '.join(map(scalar_text, want))}, got {_fmt_values(got)}")
        else:
            if len(got) != 1 or not scalar_equal(want, got[0]):
                f.fail(where, f"{name} expected {scalar_text(want)}, got {_fmt_values(got)}")
    for name in exp.get("flags_absent") or []:
        if name in flags:
            f.fail(where, f"{name} must be absent, got {_fmt_values(flags[name][-1])}")
    ambiguous = exp.get("flags_ambiguous") or {}
    for name, note in ambiguous.items():
        state = f"present ({_fmt_values(flags[name][-1])})" if name in flags else "absent"
        f.info(where, f"{name} {state}; reference ambiguous: {note}")
    known = set(expected) | set(exp.get("flags_absent") or []) | set(ambiguous) | {"<positional>"}
    unknown = [n for n in flags if n not in known]
    if unknown:
        # A flag the reference neither sets, forbids nor calls ambiguous is a difference
        # from it: the expectation lists it (in flags_ambiguous with a note, where the page
        # leaves it open) or the render is wrong.
        f.fail(where, "flags the reference does not list: "
               + ", ".join(f"{n} {_fmt_values(flags[n][-1])}".strip() for n in unknown))


def env_value_equal(want, got):
    """Env values are text: a string expectation compares exactly ('0.70' != '0.7'),
    a number or boolean one by value."""
    if isinstance(want, str):
        return got == want
    return scalar_equal(want, got)


def effective_env(container, inv, f, where):
    """Container env plus VAR=value prefixes on the engine's command line."""
    effective = env_map(container, f, where)
    for k, v in (inv.inline_env if inv else {}).items():
        if k in effective:
            f.info(where, f"env {k} set in the container and again on the command line ({v!r})")
        effective[k] = v
    return effective


def check_env(container, inv, effective, exp, f, where):
    for name, want in (exp.get("env") or {}).items():
        if name not in effective:
            f.fail(where, f"env {name} missing (expected {scalar_text(want)!r})")
        elif isinstance(effective[name], dict):
            f.fail(where, f"env {name} expected {scalar_text(want)!r}, got valueFrom {effective[name]['valueFrom']}")
        elif not env_value_equal(want, effective[name]):
            f.fail(where, f"env {name} expected {scalar_text(want)!r}, got {effective[name]!r}")
    for name, want in (exp.get("env_json") or {}).items():
        if name not in effective or isinstance(effective[name], dict):
            f.fail(where, f"env {name} missing (expected JSON {json.dumps(want)})")
            continue
        try:
            parsed = json.loads(effective[name])
        except json.JSONDecodeError as e:
            f.fail(where, f"env {name} is not valid JSON ({e}): {effective[name]}")
            continue
        for d in json_diff(want, parsed):
            f.fail(where, f"env {name} {d}")
    for name in exp.get("env_absent") or []:
        if name in effective:
            f.fail(where, f"env {name} must be absent, got {effective[name]!r}")
        v = inv.script_exports.get(name) if inv else None
        if v is not None and "$" not in v:
            f.fail(where, f"env {name} must not be set statically, the script exports {v!r}")
    for group in exp.get("env_together") or []:
        present = [n for n in group if n in effective]
        if present and len(present) != len(group):
            f.fail(where, f"env {', '.join(group)} must be set together; only {', '.join(present)} set")
        else:
            f.info(where, f"env {', '.join(group)}: {'all set' if present else 'none set'}"
                   + (" (" + "; ".join(f"{n}={effective[n]}" for n in present) + ")" if present else ""))
    for variants in exp.get("env_variants") or []:
        names = sorted({n for v in variants for n in v["env"]})
        matched = [v for v in variants if all(n in effective and scalar_equal(val, effective[n])
                                               for n, val in v["env"].items())]
        if len(matched) != 1:
            f.fail(where, "env must match exactly one variant of "
                   + " | ".join(f"{v['name']}: {v['env']}" for v in variants)
                   + f"; got {({n: effective.get(n) for n in names})}")
            continue
        stray = [n for n in names if n not in matched[0]["env"] and n in effective]
        if stray:
            f.fail(where, f"env variant {matched[0]['name']} mixed with {stray}")
        else:
            f.info(where, f"env variant {matched[0]['name']} ({matched[0].get('note', '')})")
    secrets = [get_path(e, "secretRef.name") for e in container.get("envFrom") or []]
    for s in exp.get("env_from_secrets") or []:
        if s not in secrets:
            f.fail(where, f"envFrom secretRef {s} missing (envFrom secrets: {secrets})")


def _check_quantities(kind, got, want, absent, f, where):
    got = got or {}
    for k, v in (want or {}).items():
        if k not in got:
            f.fail(where, f"resources.{kind}.{k} missing (expected {v})")
        elif quantity(got[k]) is None or quantity(got[k]) != quantity(v):
            f.fail(where, f"resources.{kind}.{k} expected {v}, got {got[k]}")
    for k in absent or []:
        if k in got:
            f.fail(where, f"resources.{kind}.{k} must be absent, got {got[k]}")


def check_resources(container, exp, f, where):
    res = container.get("resources") or {}
    _check_quantities("requests", res.get("requests"), exp.get("requests"), exp.get("requests_absent"), f, where)
    _check_quantities("limits", res.get("limits"), exp.get("limits"), exp.get("limits_absent"), f, where)
    if "container_claims" in exp:
        got = sorted(c.get("name") for c in res.get("claims") or [])
        if got != sorted(exp["container_claims"]):
            f.fail(where, f"resources.claims expected {sorted(exp['container_claims'])}, got {got}")


def _volumes(pod):
    return {v.get("name"): v for v in pod.get("volumes") or []}


def check_volumes(pod, container, exp, f, where):
    vols = _volumes(pod)
    mounts = container.get("volumeMounts") or []
    paths = [m.get("mountPath") for m in mounts]
    for p in sorted({p for p in paths if paths.count(p) > 1}):
        f.fail(where, f"mountPath {p} mounted {paths.count(p)} times")
    if "shm" in exp:
        shm = [m for m in mounts if m.get("mountPath") == "/dev/shm"]
        if exp["shm"] is None:
            if shm:
                f.fail(where, "/dev/shm must not be mounted")
        elif not shm:
            f.fail(where, f"/dev/shm not mounted (expected {exp['shm']} memory emptyDir)")
        else:
            v = vols.get(shm[0].get("name")) or {}
            ed = v.get("emptyDir")
            if ed is None:
                f.fail(where, f"/dev/shm volume {shm[0].get('name')} is not an emptyDir")
            else:
                if ed.get("medium") != "Memory":
                    f.fail(where, f"/dev/shm emptyDir medium expected Memory, got {ed.get('medium')}")
                if quantity(ed.get("sizeLimit")) != quantity(exp["shm"]):
                    f.fail(where, f"/dev/shm sizeLimit expected {exp['shm']}, got {ed.get('sizeLimit')}")
    if exp.get("shm_info"):
        shm = [m for m in mounts if m.get("mountPath") == "/dev/shm"]
        size = get_path(vols.get(shm[0].get("name")) or {}, "emptyDir.sizeLimit") if shm else None
        f.info(where, f"/dev/shm: {'sizeLimit ' + str(size) if shm else 'not mounted'}; {exp['shm_info']}")
    for want in exp.get("pvc_mounts") or []:
        claim_vols = [n for n, v in vols.items() if get_path(v, "persistentVolumeClaim.claimName") == want["claim"]]
        if not claim_vols:
            f.fail(where, f"no volume for PVC {want['claim']}")
            continue
        m = [m for m in mounts if m.get("name") in claim_vols]
        if not m:
            f.fail(where, f"PVC {want['claim']} not mounted")
            continue
        if m[0].get("mountPath") != want["mountPath"]:
            f.fail(where, f"PVC {want['claim']} mountPath expected {want['mountPath']}, got {m[0].get('mountPath')}")
        if "readOnly" in want:
            ro = bool(m[0].get("readOnly")) or bool(get_path(vols[m[0]['name']], "persistentVolumeClaim.readOnly"))
            if ro != want["readOnly"]:
                f.fail(where, f"PVC {want['claim']} readOnly expected {want['readOnly']}, got {ro}")
    for claim in exp.get("pvc_absent") or []:
        if any(get_path(v, "persistentVolumeClaim.claimName") == claim for v in vols.values()):
            f.fail(where, f"PVC {claim} must not be mounted here")


def check_pod(items, dep, container, exp, f, where):
    pod = get_path(dep, "spec.template.spec") or {}
    # Every claim template a pod names must be rendered, directly or through a ComputeDomain.
    templates = {o["metadata"]["name"] for o in by_kind(items, "ResourceClaimTemplate")}
    templates |= {get_path(o, "spec.channel.resourceClaimTemplate.name") for o in by_kind(items, "ComputeDomain")}
    for rc in pod.get("resourceClaims") or []:
        t = rc.get("resourceClaimTemplateName")
        if t and t not in templates:
            f.fail(where, f"pod resourceClaim {rc.get('name')} names template {t}, which nothing rendered provides")
    if "replicas" in exp and get_path(dep, "spec.replicas") != exp["replicas"]:
        f.fail(where, f"replicas expected {exp['replicas']}, got {get_path(dep, 'spec.replicas')}")
    if "image" in exp and container.get("image") != exp["image"]:
        f.fail(where, f"image expected {exp['image']}, got {container.get('image')}")
    if "ports" in exp:
        got = {p.get("name"): p.get("containerPort") for p in container.get("ports") or []}
        for n, num in exp["ports"].items():
            if got.get(n) != num:
                f.fail(where, f"container port {n} expected {num}, got {got.get(n)} (ports: {got})")
    if "node_selector" in exp:
        got = pod.get("nodeSelector") or {}
        for k, v in exp["node_selector"].items():
            if got.get(k) != v:
                f.fail(where, f"nodeSelector {k} expected {v}, got {got.get(k)}")
    if exp.get("node_selector_info"):
        f.info(where, f"nodeSelector {pod.get('nodeSelector') or {}}; {exp['node_selector_info']}")
    for t in exp.get("tolerations") or []:
        if not any(all(tol.get(k) == v for k, v in t.items()) for tol in pod.get("tolerations") or []):
            f.fail(where, f"toleration {t} missing (got {pod.get('tolerations')})")
    if "runtime_class" in exp and pod.get("runtimeClassName") != exp["runtime_class"]:
        f.fail(where, f"runtimeClassName expected {exp['runtime_class']}, got {pod.get('runtimeClassName')}")
    if "termination_grace_period" in exp and pod.get("terminationGracePeriodSeconds") != exp["termination_grace_period"]:
        f.fail(where, f"terminationGracePeriodSeconds expected {exp['termination_grace_period']}, "
                      f"got {pod.get('terminationGracePeriodSeconds')}")
    sc = exp.get("security_context")
    if sc:
        csc, psc = container.get("securityContext") or {}, pod.get("securityContext") or {}
        for k in ("runAsUser", "runAsGroup"):
            if k in sc:
                got = csc.get(k, psc.get(k))
                if got != sc[k]:
                    f.fail(where, f"securityContext.{k} expected {sc[k]}, got {got}")
        if "capabilities_add" in sc:
            got = sorted(get_path(csc, "capabilities.add") or [])
            missing = [c for c in sc["capabilities_add"] if c not in got]
            if missing:
                f.fail(where, f"securityContext.capabilities.add missing {missing} (got {got})")
    if "pod_resource_claims" in exp:
        got = {c.get("name"): c.get("resourceClaimTemplateName") for c in pod.get("resourceClaims") or []}
        want = {c["name"]: c.get("resourceClaimTemplateName") for c in exp["pod_resource_claims"]}
        if sorted(got) != sorted(want):
            f.fail(where, f"pod resourceClaims expected {sorted(want)}, got {sorted(got)}")
        for n, t in want.items():
            if t is not None and n in got and got[n] != t:
                f.fail(where, f"pod resourceClaim {n} resourceClaimTemplateName expected {t}, got {got[n]}")
    if "affinity_info" in exp:
        f.info(where, f"affinity {json.dumps(pod.get('affinity') or {})}; {exp['affinity_info']}")
    for k, v in (exp.get("pod_fields") or {}).items():
        got = get_path(pod, k)
        if not strict_equal(v, got):
            f.fail(where, f"pod spec {k} expected {json.dumps(v)}, got {json.dumps(got)}")


def _port_of(container, port):
    if isinstance(port, str):
        for p in container.get("ports") or []:
            if p.get("name") == port:
                return p.get("containerPort")
    return port


def check_probes(container, exp, f, where):
    for kind in ("startupProbe", "livenessProbe", "readinessProbe"):
        if kind in (exp.get("probes") or {}):
            want = exp["probes"][kind]
            got = container.get(kind)
            if want is None:
                if got:
                    f.fail(where, f"{kind} must be absent")
                continue
            if not got:
                f.fail(where, f"{kind} missing (expected {want})")
                continue
            path = get_path(got, "httpGet.path")
            if path != want["path"]:
                f.fail(where, f"{kind} path expected {want['path']}, got {path}")
            gp = _port_of(container, get_path(got, "httpGet.port"))
            wp = _port_of(container, want["port"])
            if gp != wp:
                f.fail(where, f"{kind} port expected {want['port']}, got {get_path(got, 'httpGet.port')}")
            for k in ("periodSeconds", "timeoutSeconds", "failureThreshold"):
                if k in want and got.get(k) != want[k]:
                    f.fail(where, f"{kind} {k} expected {want[k]}, got {got.get(k)}")
    if exp.get("probes_info"):
        have = {k: {kk: container[k].get(kk) for kk in ("httpGet", "periodSeconds", "failureThreshold")}
                for k in ("startupProbe", "livenessProbe", "readinessProbe") if container.get(k)}
        f.info(where, f"probes {json.dumps(have)}; {exp['probes_info']}")


MARKER = "ENGINE-STARTED-d1c3"


def run_wrapper(script, env):
    """Runs a start-up wrapper with `"$@"` = a marker command, a scrubbed environment and an
    empty fake sysfs; returns (exit code, stdout + stderr)."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "DGD_SYSFS_ROOT": tmp}
        base.update(env)
        p = subprocess.run(["/bin/bash", "-c", script, "--", "echo", MARKER], env=base, cwd=tmp,
                           capture_output=True, text=True, timeout=30)
        return p.returncode, p.stdout + p.stderr


def check_script(inv, exp, f, where):
    for s in exp.get("script_contains") or []:
        if not inv.script or s not in inv.script:
            f.fail(where, f"start-up script must contain {s!r}"
                   + ("" if inv.script else " (the container runs no shell script)"))
    req = exp.get("script_requires_env") or {}
    if req and not inv.script:
        f.fail(where, f"no start-up script reads {sorted(req)} (the container runs no shell script)")
        return
    for var in req:
        # Every other variable set to a plausible value, this one unset: the wrapper must refuse
        # to start the engine and say which variable is missing.
        env = {k: v for k, v in req.items() if k != var}
        code, out = run_wrapper(inv.script, env)
        if code == 0 or MARKER in out:
            f.fail(where, f"start-up script started the engine without {var} (exit {code})")
        elif var not in out:
            f.fail(where, f"start-up script failed without {var} but did not name it: {out.strip()[-200:]!r}")


def check_sglang_config(items, pod, container, inv, exp, f, where):
    sc = exp.get("sglang_config")
    if not sc:
        return
    occ = inv.flags.get("--config")
    if not occ or len(occ[-1]) != 1:
        f.fail(where, "--config <file> missing")
        return
    path = occ[-1][0]
    if path != sc["path"]:
        f.fail(where, f"--config expected {sc['path']}, got {path}")
    mdir, fname = os.path.split(path)
    mounts = [m for m in container.get("volumeMounts") or [] if m.get("mountPath") in (mdir, path)]
    if not mounts:
        f.fail(where, f"nothing mounted at {mdir} for --config {path}")
        return
    vol = _volumes(pod).get(mounts[0].get("name")) or {}
    cm_name = get_path(vol, "configMap.name")
    if not cm_name:
        f.fail(where, f"{mdir} is not a ConfigMap volume")
        return
    if "configmap" in sc and cm_name != sc["configmap"]:
        f.fail(where, f"ConfigMap name expected {sc['configmap']}, got {cm_name}")
    if sc.get("read_only") and not mounts[0].get("readOnly"):
        f.fail(where, f"{mdir} must be mounted read-only")
    key = fname
    if mounts[0].get("mountPath") == path:
        key = mounts[0].get("subPath", fname)
    for it in get_path(vol, "configMap.items") or []:
        if it.get("path") == fname:
            key = it.get("key")
    cm = find_object(items, "ConfigMap", cm_name)
    if cm is None:
        f.fail(where, f"ConfigMap {cm_name} not rendered")
        return
    text = (cm.get("data") or {}).get(key)
    if text is None:
        f.fail(where, f"ConfigMap {cm_name} has no key {key}")
        return
    import yaml  # Debian's python3-yaml
    try:
        conf = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        f.fail(where, f"ConfigMap {cm_name}/{key} is not YAML: {e}")
        return
    for k, v in sc.get("keys", {}).items():
        if k not in conf:
            f.fail(where, f"SGLang config {key}: {k} missing (expected {scalar_text(v)})")
        elif not scalar_equal(v, conf[k]) or (isinstance(v, str) and isinstance(conf[k], bool)):
            f.fail(where, f"SGLang config {key}: {k} expected {scalar_text(v)}, got {scalar_text(conf[k])}")
    for k in sc.get("keys_absent", []):
        if k in conf:
            f.fail(where, f"SGLang config {key}: {k} must be absent, got {scalar_text(conf[k])}")
    unknown = [k for k in conf if k not in sc.get("keys", {}) and k not in sc.get("keys_absent", [])]
    if unknown:
        f.info(where, f"SGLang config {key} keys the reference does not list: {unknown}")


def check_service(items, dgd, comp, f, where):
    svc_name = f"{dgd}-{comp['name'].lower()}".replace(".", "-")
    svc = find_object(items, "Service", svc_name)
    if svc is None:
        f.fail(where, f"Service {svc_name} not rendered")
        return
    want = comp.get("service_ports")
    if want:
        got = {p.get("name"): p.get("port") for p in get_path(svc, "spec.ports") or []}
        for n, num in want.items():
            if got.get(n) != num:
                f.fail(where, f"Service {svc_name} port {n} expected {num}, got {got.get(n)}")


def configmap_file(items, pod, container, path):
    """Text of `path` when a rendered ConfigMap is mounted there, else None."""
    vols = _volumes(pod)
    for m in container.get("volumeMounts") or []:
        mp = m.get("mountPath", "").rstrip("/")
        if path == mp and m.get("subPath"):
            key = m["subPath"]
        elif path.startswith(mp + "/"):
            key = path[len(mp) + 1:]
        else:
            continue
        vol = vols.get(m.get("name")) or {}
        cm = find_object(items, "ConfigMap", get_path(vol, "configMap.name") or "")
        for it in get_path(vol, "configMap.items") or []:
            if it.get("path") == key:
                key = it.get("key")
        if cm is not None:
            return (cm.get("data") or {}).get(key)
    return None


def check_component(items, dgd, comp, f):
    where = comp["name"]
    dep = find_component_deployment(items, comp["name"], comp["type"], f, dgd)
    if dep is None:
        return
    want_name = f"{dgd}-{comp['name'].lower()}".replace(".", "-")
    is_worker = comp["type"] in ("worker", "prefill", "decode")
    if not deployment_name_ok(dgd, comp["name"], dep["metadata"]["name"], worker=is_worker):
        f.fail(where, f"Deployment name expected {want_name}" + ("-<8 hex> (its worker generation)" if is_worker else "")
               + f", got {dep['metadata']['name']}")
    lbl = labels_of(dep)
    if lbl.get(LBL_DGD) != dgd:
        f.fail(where, f"label {LBL_DGD} expected {dgd}, got {lbl.get(LBL_DGD)}")
    if lbl.get(LBL_TYPE) != comp["type"]:
        f.fail(where, f"label {LBL_TYPE} expected {comp['type']}, got {lbl.get(LBL_TYPE)}")
    c = main_container(dep)
    if c is None:
        f.fail(where, "Deployment has no containers")
        return
    if c.get("name") != "main":
        f.fail(where, f"container name expected main, got {c.get('name')}")
    inv = reconstruct(c, lambda path: configmap_file(items, get_path(dep, "spec.template.spec") or {}, c, path))
    for e in inv.errors:
        f.fail(where, f"command line: {e}")
    if "module" in comp and inv.module != comp["module"]:
        f.fail(where, f"runs {inv.module}, expected python3 -m {comp['module']}")
    pod = get_path(dep, "spec.template.spec") or {}
    effective = effective_env(c, inv, f, where)
    check_flags(inv, effective, comp, f, where)
    check_env(c, inv, effective, comp, f, where)
    check_resources(c, comp, f, where)
    check_volumes(pod, c, comp, f, where)
    check_pod(items, dep, c, comp, f, where)
    check_probes(c, comp, f, where)
    check_script(inv, comp, f, where)
    check_sglang_config(items, pod, c, inv, comp, f, where)
    check_service(items, dgd, comp, f, where)


def _pvc_mount_of(pod, container, claim):
    vols = [n for n, v in _volumes(pod).items() if get_path(v, "persistentVolumeClaim.claimName") == claim]
    for m in container.get("volumeMounts") or []:
        if m.get("name") in vols:
            return m.get("mountPath")
    return None


def _rel(path, base):
    if path is None or base is None:
        return None
    path, base = path.rstrip("/"), base.rstrip("/")
    if path == base:
        return ""
    return path[len(base) + 1:] if path.startswith(base + "/") else None


def check_download_job(items, exp, f):
    """The model download Job, found by the PVC it writes to (its name is reported, not required)."""
    dj = exp.get("download_job")
    if not dj:
        return
    where = "download Job"
    jobs = [j for j in by_kind(items, "Job")
            if any(get_path(v, "persistentVolumeClaim.claimName") == dj["claim"]
                   for v in get_path(j, "spec.template.spec.volumes") or [])]
    if not jobs:
        # Every expectation with a download_job is of a DGD that asks for the download, so
        # the Job is required: a renderer that drops it fails here.
        f.fail(where, f"no Job writes to PVC {dj['claim']} (rendered Jobs: {[j['metadata']['name'] for j in by_kind(items, 'Job')]})")
        return
    if len(jobs) > 1:
        f.fail(where, f"{len(jobs)} Jobs write to PVC {dj['claim']}: {[j['metadata']['name'] for j in jobs]}")
    job = jobs[0]
    name = job["metadata"]["name"]
    if name != dj.get("name"):
        f.info(where, f"named {name}; recipes.md names it {dj.get('name')} (its `kubectl wait job/{dj.get('name')}` step)")
    pod = get_path(job, "spec.template.spec") or {}
    c = (pod.get("containers") or [{}])[0]
    env = env_map(c, f, where)
    text = " ".join((c.get("command") or []) + (c.get("args") or []))
    everything = text + " " + " ".join(v for v in env.values() if isinstance(v, str))
    for k in ("backoffLimit",):
        if k in dj and get_path(job, f"spec.{k}") != dj[k]:
            f.fail(where, f"spec.{k} expected {dj[k]}, got {get_path(job, 'spec.' + k)}")
    if "restartPolicy" in dj and pod.get("restartPolicy") != dj["restartPolicy"]:
        f.fail(where, f"restartPolicy expected {dj['restartPolicy']}, got {pod.get('restartPolicy')}")
    if "image" in dj and c.get("image") != dj["image"]:
        f.fail(where, f"image expected {dj['image']}, got {c.get('image')}")
    if dj.get("model") and dj["model"] not in everything:
        f.fail(where, f"does not download {dj['model']}")
    if dj.get("revision"):
        if dj["revision"] not in everything or "--revision" not in text:
            f.fail(where, f"does not pin --revision {dj['revision']}")
    elif "revision_info" in dj:
        f.info(where, f"--revision {'passed' if '--revision' in text else 'not passed'}; {dj['revision_info']}")
    for s in dj.get("script_contains") or []:
        if s not in text:
            f.fail(where, f"command must contain {s!r}")
    secret = dj.get("token_secret")
    if secret:
        by_env_from = secret in [get_path(e, "secretRef.name") for e in c.get("envFrom") or []]
        tok = env.get("HF_TOKEN")
        by_ref = isinstance(tok, dict) and get_path(tok, "valueFrom.secretKeyRef.name") == secret
        if isinstance(tok, str):
            f.fail(where, "HF_TOKEN is set as a literal value (must come from a Secret reference)")
        elif not (by_env_from or by_ref):
            f.fail(where, f"the token does not come from Secret {secret} (envFrom or HF_TOKEN secretKeyRef)")
    sub = {k: dj[k] for k in ("env", "env_absent") if k in dj}
    if sub:
        check_env(c, None, env, sub, f, where)
    _check_quantities("requests", get_path(c, "resources.requests"), dj.get("requests"), None, f, where)
    _check_quantities("limits", get_path(c, "resources.limits"), dj.get("limits"), None, f, where)
    # The download must land where the workers read: HF_HOME at the same place inside the PVC.
    comp = dj.get("hf_home_matches")
    if comp:
        d = [x for x in by_kind(items, "Deployment") if labels_of(x).get(LBL_COMPONENT) == comp]
        if d:
            wpod = get_path(d[0], "spec.template.spec") or {}
            wc = main_container(d[0]) or {}
            whome = env_map(wc, Findings(""), comp).get("HF_HOME")
            jrel = _rel(env.get("HF_HOME") if isinstance(env.get("HF_HOME"), str) else None, _pvc_mount_of(pod, c, dj["claim"]))
            wrel = _rel(whome if isinstance(whome, str) else None, _pvc_mount_of(wpod, wc, dj["claim"]))
            if jrel is None or jrel != wrel:
                f.fail(where, f"HF_HOME {env.get('HF_HOME')!r} (PVC at {_pvc_mount_of(pod, c, dj['claim'])}) is not where "
                              f"{comp} reads, HF_HOME {whome!r} (PVC at {_pvc_mount_of(wpod, wc, dj['claim'])})")


def check_objects(items, exp, f):
    for o in exp.get("objects") or []:
        obj = find_object(items, o["kind"], o["name"])
        if obj is None:
            have = sorted(x["metadata"]["name"] for x in by_kind(items, o["kind"]))
            msg = f"{o['kind']} {o['name']} not rendered (rendered {o['kind']}s: {have})"
            if o.get("optional"):
                f.info("", msg + f"; optional: {o['optional']}")
            else:
                f.fail("", msg)
            continue
        if o.get("env") or o.get("env_from_secrets"):
            cont = (get_path(obj, "spec.template.spec.containers") or [{}])[0]
            check_env(cont, None, env_map(cont, f, o["name"]), o, f, f"{o['kind']} {o['name']}")
        if "apiVersion" in o and obj.get("apiVersion") != o["apiVersion"]:
            f.fail("", f"{o['kind']} {o['name']} apiVersion expected {o['apiVersion']}, got {obj.get('apiVersion')}")
        for k, v in (o.get("fields") or {}).items():
            got = get_path(obj, k)
            if isinstance(v, (str, int, float)) and not isinstance(v, bool) and got is not None \
                    and not isinstance(got, (dict, list)):
                ok = scalar_equal(v, got)
            else:
                ok = strict_equal(v, got)
            if not ok:
                f.fail("", f"{o['kind']} {o['name']} {k} expected {json.dumps(v)}, got {json.dumps(got)}")
    for kind in exp.get("kinds_absent") or []:
        if by_kind(items, kind):
            f.fail("", f"no {kind} expected, rendered {[x['metadata']['name'] for x in by_kind(items, kind)]}")
    for kind, note in (exp.get("objects_info") or {}).items():
        f.info("", f"{kind}: {[x['metadata']['name'] for x in by_kind(items, kind)]}; {note}")


def check_target(items, exp, target_label=None, scope=("recipe", "download")):
    """Checks of one expectation document against rendered children. Scope "recipe": the
    components, their Services and the other children; "download": the model download Job."""
    f = Findings(target_label or exp["target"])
    if "download" in scope:
        check_download_job(items, exp, f)
    if "recipe" not in scope:
        return f
    dgd = exp["dgd"]
    deps = by_kind(items, "Deployment")
    want = {c["name"] for c in exp["components"]}
    for d in deps:
        n = labels_of(d).get(LBL_COMPONENT)
        if n not in want:
            f.fail("", f"unexpected component Deployment {d['metadata']['name']} ({LBL_COMPONENT}={n})")
    for comp in exp["components"]:
        check_component(items, dgd, comp, f)
    check_objects(items, exp, f)
    return f


def diff_outputs(a, b, limit=5):
    """Paths where two renders differ (first `limit`)."""
    out = []

    def walk(x, y, p):
        if len(out) >= limit:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                if k not in x or k not in y:
                    out.append(f"{p}.{k} only in {'first' if k in x else 'second'}")
                else:
                    walk(x[k], y[k], f"{p}.{k}")
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                out.append(f"{p} length {len(x)} vs {len(y)}")
            for i, (xx, yy) in enumerate(zip(x, y)):
                walk(xx, yy, f"{p}[{i}]")
        elif not strict_equal(x, y):
            out.append(f"{p}: {json.dumps(x)[:80]} vs {json.dumps(y)[:80]}")

    walk(a, b, "")
    return out


def deepcopy(x):
    return copy.deepcopy(x)


# ------------------------------------------------------------------------ targets and runs

def source_dir():
    return os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def reference_dir(src=None):
    return os.path.join(src or source_dir(), "tests", "golden", "reference")


def load_yaml(path):
    import yaml
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def expectation_files(src=None):
    """(label, path) of every target expectation, fixtures excluded, sorted."""
    root = reference_dir(src)
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "fixtures")
        for fn in sorted(filenames):
            if fn.endswith(".yaml"):
                rel = os.path.relpath(os.path.join(dirpath, fn), root)[:-len(".yaml")]
                out.append((rel, os.path.join(dirpath, fn)))
    return sorted(out)


def check_recipe_folder(dgdctl, src, label, exp, scope=("recipe",)):
    """Render the target's deploy.yaml directly and through `kubectl kustomize` of its folder,
    check both (within `scope`, see check_target), and require the two renders to be identical."""
    f = Findings(label)
    try:
        dgd_file = recipe_file(exp["target"], src)
    except KeyError as e:
        f.fail("", str(e))
        return f
    folder = os.path.dirname(dgd_file)
    direct, err = run_render(dgdctl, dgd_file, cwd=src)
    if err:
        f.fail("", err)
    else:
        for item in check_target(direct, exp, label, scope).items:
            f.items.append(item)
    text, err = kustomize(folder)
    if err:
        f.fail("", err)
        return f
    via_kustomize, err = run_render(dgdctl, None, stdin_text=text, cwd=src)
    if err:
        f.fail("", "via kustomize: " + err)
        return f
    if direct is not None:
        diffs = diff_outputs({"items": direct}, {"items": via_kustomize})
        if diffs:
            f.fail("", "render of `kubectl kustomize` output differs from render of " + os.path.basename(dgd_file) + ": " + "; ".join(diffs))
            for lvl, where, msg in check_target(via_kustomize, exp, label + " (kustomize)", scope).items:
                if lvl == FAIL:
                    f.items.append((lvl, where, msg))
    return f


# ------------------------------------------------------------------------ self-test

def _dep(items, comp):
    for d in by_kind(items, "Deployment"):
        if labels_of(d).get(LBL_COMPONENT) == comp:
            return d
    raise KeyError(comp)


def _main(items, comp):
    return main_container(_dep(items, comp))


def _set_arg(items, comp, flag, value):
    args = _main(items, comp)["args"]
    i = args.index(flag)
    args[i + 1] = value


def _drop_arg(items, comp, flag, has_value):
    args = _main(items, comp)["args"]
    i = args.index(flag)
    del args[i:i + (2 if has_value else 1)]


def _set_env(items, comp, name, value):
    c = _main(items, comp)
    for e in c["env"]:
        if e["name"] == name:
            if value is None:
                c["env"].remove(e)
            else:
                e["value"] = value
            return
    c["env"].append({"name": name, "value": value})


def _job_env(items, name, value):
    c = by_kind(items, "Job")[0]["spec"]["template"]["spec"]["containers"][0]
    c["env"] = [e for e in c["env"] if e["name"] != name] + [{"name": name, "value": value}]


def _json_arg(items, comp, flag, key, value):
    args = _main(items, comp)["args"]
    i = args.index(flag)
    d = json.loads(args[i + 1])
    d[key] = value
    args[i + 1] = json.dumps(d)


def _selftest_cases():
    """(fixture, expectation, description, mutation, expected FAIL substring or None for 'no failure')."""
    h200 = ("dsv41-vllm-disagg-h200.rendered.yaml", "deepseek-v4.1-flash/vllm/disagg-h200-agentic")
    sgl = ("dsv41-sglang-disagg-gb200.rendered.yaml", "deepseek-v4.1-flash/sglang/disagg-gb200")
    v4 = ("dsv4-vllm-agg-b200.rendered.yaml", "deepseek-v4-flash/vllm/agg-b200-agentic")

    def wrapper_export(items):
        c = _main(items, "DecodeWorker")
        c["command"][2] = c["command"][2].replace('export UCX_NET_DEVICES="$devs"', "export UCX_NET_DEVICES=mlx5_0:1")

    def wrapper_no_info(items):
        c = _main(items, "DecodeWorker")
        c["command"][2] = ('IFS=, read -r -a addrs <<<"${PCIDEVICE_RDMA_IB:?}"\n'
                           'export UCX_NET_DEVICES="$(echo mlx5_0:1)"\nexec "$@"\n')

    def v4_script(old, new):
        def m(items):
            c = _main(items, "VllmDecodeWorker")
            assert old in c["args"][0], old
            c["args"][0] = c["args"][0].replace(old, new)
        return m

    def frontend_script(old, new):
        def m(items):
            c = _main(items, "Frontend")
            c["args"][0] = c["args"][0].replace(old, new)
        return m

    def sgl_config(key, old, new):
        def m(items):
            cm = find_object(items, "ConfigMap", "deepseek-v41-flash-sglang-gb200-disagg-sglang-config")
            assert old in cm["data"][key], old
            cm["data"][key] = cm["data"][key].replace(old, new)
        return m

    def remove_object(kind, name):
        def m(items):
            items.remove(find_object(items, kind, name))
        return m

    return [
        (*h200, "the hand-made correct output passes", lambda items: None, None),
        (*h200, "wrong flag value", lambda it: _set_arg(it, "DecodeWorker", "--max-num-batched-tokens", "16384"),
         "DecodeWorker: --max-num-batched-tokens expected 8192, got 16384"),
        (*h200, "numeric spelling of the same value passes",
         lambda it: _set_arg(it, "PrefillWorker", "--gpu-memory-utilization", "0.920"), None),
        (*h200, "missing switch", lambda it: _drop_arg(it, "PrefillWorker", "--enable-eplb", False),
         "PrefillWorker: --enable-eplb missing"),
        (*h200, "missing valued flag", lambda it: _drop_arg(it, "DecodeWorker", "--kv-transfer-config", True),
         "DecodeWorker: --kv-transfer-config missing"),
        (*h200, "forbidden flag", lambda it: _main(it, "DecodeWorker")["args"].extend(["--max-model-len", "1048576"]),
         "DecodeWorker: --max-model-len must be absent"),
        (*h200, "flag given twice", lambda it: _main(it, "DecodeWorker")["args"].extend(["--max-num-seqs", "512"]),
         "DecodeWorker: --max-num-seqs given 2 times"),
        (*h200, "wrong value inside a JSON flag",
         lambda it: _json_arg(it, "PrefillWorker", "--speculative-config", "num_speculative_tokens", 2),
         "PrefillWorker: --speculative-config .num_speculative_tokens expected 3, got 2"),
        (*h200, "bool vs string inside a JSON flag",
         lambda it: _json_arg(it, "PrefillWorker", "--speculative-config", "enable_adaptive_verification", "false"),
         '.enable_adaptive_verification expected false, got "false"'),
        (*h200, "extra key inside a JSON flag",
         lambda it: _json_arg(it, "DecodeWorker", "--kv-transfer-config", "kv_rank", 0),
         "DecodeWorker: --kv-transfer-config .kv_rank unexpected"),
        (*h200, "wrong frontend env", lambda it: _set_env(it, "Frontend", "DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT", "100"),
         "Frontend: env DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT expected '50', got '100'"),
        (*h200, "missing frontend env", lambda it: _set_env(it, "Frontend", "DYN_ROUTER_CONDITIONAL_DISAGG", None),
         "Frontend: env DYN_ROUTER_CONDITIONAL_DISAGG missing"),
        (*h200, "wrong value inside a JSON env",
         lambda it: _set_env(it, "Frontend", "DYN_ROUTER_CONDITIONAL_DISAGG_CONFIG",
                             '{"policy":"isl_bounding","eff_isl_threshold":4096,"eff_isl_ratio_threshold":0.7,"decode_busy_threshold":0.5}'),
         "Frontend: env DYN_ROUTER_CONDITIONAL_DISAGG_CONFIG .eff_isl_threshold expected 2048, got 4096"),
        (*h200, "wrapper that does not read PCIDEVICE_RDMA_IB_INFO", wrapper_no_info,
         "DecodeWorker: start-up script started the engine without PCIDEVICE_RDMA_IB_INFO"),
        (*h200, "download Job dropped", remove_object("Job", "model-download"),
         "download Job: no Job writes to PVC shared-model-cache"),
        (*h200, "download Job pinned to another revision",
         lambda it: _job_env(it, "MODEL_REVISION", "main"), "download Job: does not pin --revision dba1be0a"),
        (*h200, "download Job with a literal token", lambda it: _job_env(it, "HF_TOKEN", "hf_abc"),
         "download Job: HF_TOKEN is set as a literal value"),
        (*h200, "download Job writing elsewhere than the workers read",
         lambda it: _job_env(it, "HF_HOME", "/shared-model-cache/hf"),
         "download Job: HF_HOME '/shared-model-cache/hf' (PVC at /shared-model-cache) is not where PrefillWorker reads"),
        (*h200, "static UCX_NET_DEVICES in env", lambda it: _set_env(it, "PrefillWorker", "UCX_NET_DEVICES", "mlx5_0:1"),
         "PrefillWorker: env UCX_NET_DEVICES must be absent"),
        (*h200, "static UCX_NET_DEVICES exported by the wrapper", wrapper_export,
         "DecodeWorker: env UCX_NET_DEVICES must not be set statically"),
        (*h200, "wrong worker env", lambda it: _set_env(it, "PrefillWorker", "UCX_TLS", "rc_x,rc,cuda_copy,cuda_ipc"),
         "PrefillWorker: env UCX_TLS expected 'rc_x,rc,cuda_copy,cuda_ipc,tcp'"),
        (*h200, "wrong resource request",
         lambda it: _main(it, "PrefillWorker")["resources"]["requests"].update({"memory": "256Gi"}),
         "PrefillWorker: resources.requests.memory expected 512Gi, got 256Gi"),
        (*h200, "equal quantity in another unit passes",
         lambda it: _main(it, "PrefillWorker")["resources"]["requests"].update({"cpu": "16000m", "memory": "524288Mi"}), None),
        (*h200, "forbidden memory limit",
         lambda it: _main(it, "DecodeWorker")["resources"]["limits"].update({"memory": "512Gi"}),
         "DecodeWorker: resources.limits.memory must be absent"),
        (*h200, "missing RDMA limit", lambda it: _main(it, "DecodeWorker")["resources"]["limits"].pop("rdma/ib"),
         "DecodeWorker: resources.limits.rdma/ib missing"),
        (*h200, "wrong frontend resource",
         lambda it: _main(it, "Frontend")["resources"]["requests"].update({"cpu": "16"}),
         "Frontend: resources.requests.cpu expected 4, got 16"),
        (*h200, "wrong replicas", lambda it: _dep(it, "DecodeWorker")["spec"].update({"replicas": 2}),
         "DecodeWorker: replicas expected 1, got 2"),
        (*h200, "wrong image", lambda it: _main(it, "Frontend").update({"image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0-deepseek-v4.1-flash-dev.1"}),
         "Frontend: image expected"),
        (*h200, "wrong shared memory size",
         lambda it: _dep(it, "PrefillWorker")["spec"]["template"]["spec"]["volumes"][0]["emptyDir"].update({"sizeLimit": "8Gi"}),
         "PrefillWorker: /dev/shm sizeLimit expected 200Gi, got 8Gi"),
        (*h200, "wrong probe", lambda it: _main(it, "DecodeWorker")["startupProbe"].update({"failureThreshold": 720}),
         "DecodeWorker: startupProbe failureThreshold expected 120, got 720"),
        (*h200, "renamed component",
         lambda it: _dep(it, "DecodeWorker")["metadata"]["labels"].update({LBL_COMPONENT: "Decode"}),
         "DecodeWorker: component name expected 'DecodeWorker', got 'Decode'"),
        (*h200, "missing Service", remove_object("Service", "dsv41-flash-vllm-h200-disagg-agentic-decodeworker"),
         "DecodeWorker: Service dsv41-flash-vllm-h200-disagg-agentic-decodeworker not rendered"),
        (*h200, "a flag the reference does not list",
         lambda it: _main(it, "DecodeWorker")["args"].extend(["--revision", "dba1be0"]),
         "DecodeWorker: flags the reference does not list: --revision dba1be0"),
        (*sgl, "the hand-made correct SGLang output passes", lambda items: None, None),
        (*sgl, "wrong SGLang config value", sgl_config("decode.yaml", "tp-size: 4", "tp-size: 8"),
         "DecodeWorker: SGLang config decode.yaml: tp-size expected 4, got 8"),
        (*sgl, "forbidden SGLang config key", sgl_config("decode.yaml", "port: 30000\n", "port: 30000\nspeculative-algorithm: DSPARK\n"),
         "DecodeWorker: SGLang config decode.yaml: speculative-algorithm must be absent"),
        (*sgl, "missing SGLang config key", sgl_config("prefill.yaml", "max-prefill-tokens: 16384\n", ""),
         "PrefillWorker: SGLang config prefill.yaml: max-prefill-tokens missing"),
        (*sgl, "missing ComputeDomain", remove_object("ComputeDomain", "deepseek-v41-flash-sglang-gb200-disagg-compute-domain"),
         "ComputeDomain deepseek-v41-flash-sglang-gb200-disagg-compute-domain not rendered"),
        (*sgl, "missing container claim", lambda it: _main(it, "DecodeWorker")["resources"].pop("claims"),
         "resources.claims expected ['compute-domain-channel'], got []"),
        (*sgl, "mixed Mooncake transport variants", lambda it: _set_env(it, "PrefillWorker", "MC_FORCE_TCP", "1"),
         "PrefillWorker: env must match exactly one variant of generic-tcp"),
        (*sgl, "empty DYN_FORWARDPASS_METRIC_PORT replaced", lambda it: _set_env(it, "PrefillWorker", "DYN_FORWARDPASS_METRIC_PORT", "20380"),
         "env DYN_FORWARDPASS_METRIC_PORT expected '', got '20380'"),
        (*v4, "the hand-made correct bash -lc output passes", lambda items: None, None),
        (*v4, "wrong value in a multi-line script", v4_script("--moe-backend flashinfer_trtllm", "--moe-backend marlin"),
         "VllmDecodeWorker: --moe-backend expected flashinfer_trtllm, got marlin"),
        (*v4, "wrong key in a JSON value spread over lines", v4_script('"custom_ops": ["all"]', '"custom_ops": ["none"]'),
         "VllmDecodeWorker: --compilation-config .custom_ops expected"),
        (*v4, "forbidden flag in a script", v4_script("--moe-backend flashinfer_trtllm", "--moe-backend flashinfer_trtllm --kv-events-config '{}'"),
         "VllmDecodeWorker: --kv-events-config must be absent"),
        (*v4, "inline VAR=value env on the command line", frontend_script("DYN_ROUTER_MODE=kv", "DYN_ROUTER_MODE=round-robin"),
         "Frontend: env DYN_ROUTER_MODE expected 'kv', got 'round-robin'"),
        (*v4, "missing envFrom secret", lambda it: _main(it, "VllmDecodeWorker").pop("envFrom"),
         "VllmDecodeWorker: envFrom secretRef hf-token-secret missing"),
        (*v4, "wrong node selector",
         lambda it: _dep(it, "VllmDecodeWorker")["spec"]["template"]["spec"].update({"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H200"}}),
         "VllmDecodeWorker: nodeSelector nvidia.com/gpu.product expected NVIDIA-B200, got NVIDIA-H200"),
        (*v4, "read-write model cache", lambda it: _main(it, "Frontend")["volumeMounts"][0].pop("readOnly") and
         _dep(it, "Frontend")["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"].pop("readOnly"),
         "Frontend: PVC model-cache readOnly expected True, got False"),
        (*v4, "two engine commands in a script", v4_script("python3 -m dynamo.vllm", "python3 -m dynamo.vllm --help; python3 -m dynamo.vllm"),
         "expected exactly one `python3 -m dynamo.*` command in the script, found 2"),
    ]


def self_test(src=None, verbose=False):
    """Proves the checker catches each kind of error on hand-made fixtures; returns failures."""
    src = src or source_dir()
    fixtures = os.path.join(reference_dir(src), "fixtures")
    problems = []
    cache = {}
    for fixture, target, desc, mutate, want in _selftest_cases():
        if fixture not in cache:
            cache[fixture] = load_yaml(os.path.join(fixtures, fixture))["items"]
        items = copy.deepcopy(cache[fixture])
        exp = load_yaml(os.path.join(reference_dir(src), target + ".yaml"))
        mutate(items)
        # Fixtures without a download Job exercise the recipe checks only.
        scope = ("recipe", "download") if by_kind(cache[fixture], "Job") else ("recipe",)
        found = check_target(items, exp, target, scope)
        fails = found.lines(with_info=False)
        if want is None:
            ok = not fails
            detail = "; ".join(fails[:5])
        else:
            ok = any(want in line for line in fails)
            detail = f"expected a FAIL containing {want!r}; got: " + ("; ".join(fails[:5]) or "no failures")
        print(f"{'ok  ' if ok else 'FAIL'} self-test [{target}] {desc}" + ("" if ok else f": {detail}"))
        if verbose and ok:
            for line in (fails if want else found.lines())[:3]:
                print("       " + line)
        if not ok:
            problems.append(desc)
    # The reconstruction must also agree with bash about what `bash -lc <script> -- python3` runs.
    inv = reconstruct({"command": ["/bin/bash", "-lc", 'export A="$(x)"; exec "$@"', "--", "python3"],
                       "args": ["-m", "dynamo.vllm", "--a", "1", "--b"]})
    if inv.argv != ["python3", "-m", "dynamo.vllm", "--a", "1", "--b"] or inv.flags != {"--a": [["1"]], "--b": [[]]}:
        problems.append(f"wrapper reconstruction gave {inv.argv}")
        print(f"FAIL self-test wrapper reconstruction: {inv.argv} {inv.errors}")
    else:
        print("ok   self-test wrapper reconstruction (bash -lc <script> -- python3 + args)")
    return problems
