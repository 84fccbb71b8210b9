#!/usr/bin/env python3
"""Checks the deployment files with what runs without a Docker engine.

- docker-compose.yml validates (`docker-compose config`);
- the image builds: the Dockerfile's build stage is reproduced exactly — every path it
  COPYs from the build context (less what `.dockerignore` leaves out) is copied into an
  empty directory, and its `cargo build` RUN line runs there verbatim, only with
  `--offline` added (the local registry cache stands in for the cache mount) — so a
  missing path, a new workspace member or a file read at build time fails here;
- the binaries that build lands in the image's /usr/local/bin are every binary
  docker-compose.yml and the Kubernetes manifests run (and the workspace builds them);
- every service (each binary of a package under services/) is deployed everywhere:
  built into the image, run by a compose service and by a Kubernetes Deployment, and
  each compose service running one is scraped by deploy/prometheus.yml;
- every file docker-compose.yml mounts exists;
- the Kubernetes manifests (and the alternatives in its subdirectories, such as
  single-redis/) validate against the Kubernetes API schemas (`kubernetes-validate`
  from PyPI, which ships them: no network), strictly (no unknown field), the
  kustomization lists every manifest of its directory, and the probes use gRPC on a
  container port.

Usage: deploy/check.py [--no-build]
  --no-build  skip the image build (quick static checks only).
Environment:
  DEPLOY_IMAGE_DIR  where the build happens (default target/deploy-image): the copied
                    context in src/, cargo's target dir in target/ (kept between runs,
                    as Docker's cache mount is, so only changed crates rebuild) and the
                    image's binaries in out/ (what deploy/compose_run.py starts).

Exits non-zero with one line per problem.
"""
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import time

import yaml

root = pathlib.Path(__file__).resolve().parent.parent
problems = []
build = "--no-build" not in sys.argv[1:]

# Binaries the workspace builds.
meta = json.loads(subprocess.run(
    ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"],
    cwd=root, check=True, capture_output=True, text=True).stdout)
bins = {t["name"] for p in meta["packages"] for t in p["targets"] if "bin" in t["kind"]}
# The services: a new one under services/ is not deployed until every artefact runs it.
service_bins = {t["name"] for p in meta["packages"] for t in p["targets"] if "bin" in t["kind"]
                and (root / "services") in pathlib.Path(p["manifest_path"]).parents}


# ---- Dockerfile: its instructions, per stage.
def dockerfile_stages(text):
    """[(stage name, [(INSTRUCTION, argument text)])], continuation lines joined."""
    stages = []
    logical = ""
    for line in text.splitlines():
        if not logical and line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            logical += line.rstrip()[:-1] + " "
            continue
        logical += line
        if logical.strip():
            word, _, rest = logical.strip().partition(" ")
            word = word.upper()
            if word == "FROM":
                m = re.search(r"\sAS\s+(\S+)", " " + rest, re.IGNORECASE)
                stages.append((m.group(1) if m else str(len(stages)), []))
            elif stages:
                stages[-1][1].append((word, rest.strip()))
        logical = ""
    return stages


def dockerignore_matcher(path):
    """A predicate on context-relative paths ('a/b/c'): does .dockerignore exclude it?
    Docker's rules: patterns in order, `!` re-includes, `*`/`?` stay within one path
    element, `**` spans any number, and a pattern that matches a directory excludes
    what is below it."""
    rules = []
    if path.exists():
        for raw in path.read_text().splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            pattern = line[1:].strip() if negate else line
            pattern = pattern.strip("/")
            rx, i = "", 0
            while i < len(pattern):
                if pattern.startswith("**/", i):
                    rx, i = rx + "(?:.*/)?", i + 3
                elif pattern.startswith("**", i):
                    rx, i = rx + ".*", i + 2
                elif pattern[i] == "*":
                    rx, i = rx + "[^/]*", i + 1
                elif pattern[i] == "?":
                    rx, i = rx + "[^/]", i + 1
                else:
                    rx, i = rx + re.escape(pattern[i]), i + 1
            rules.append((negate, re.compile(rx + "(?:/.*)?$")))

    def excluded(rel):
        out = False
        for negate, rx in rules:
            if rx.match(rel):
                out = not negate
        return out
    return excluded


def copy_into(context, src_rel, dest, excluded):
    """Docker's COPY of one context path: a directory's contents go into `dest`."""
    src = context / src_rel
    if not src.exists() or excluded(src_rel):
        problems.append(f"Dockerfile copies {src_rel}, which is not in the build context")
        return
    if src.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
        return
    for dirpath, dirnames, filenames in os.walk(src):
        rel_dir = pathlib.Path(dirpath).relative_to(context)
        dirnames[:] = [d for d in dirnames if not excluded((rel_dir / d).as_posix())]
        for f in filenames:
            rel = (rel_dir / f).as_posix()
            if excluded(rel):
                continue
            target = dest / pathlib.Path(dirpath).relative_to(src) / f
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(pathlib.Path(dirpath) / f, target)


dockerfile = (root / "deploy" / "Dockerfile").read_text()
stages = dockerfile_stages(dockerfile)
build_stage = next((s for s in stages if any("cargo build" in a for w, a in s[1] if w == "RUN")), None)
if build_stage is None:
    problems.append("Dockerfile has no stage that runs cargo build")
    build_steps, runtime_copy = [], []
else:
    build_steps = build_stage[1]
    runtime_copy = [a for s in stages if s is not build_stage for w, a in s[1]
                    if w == "COPY" and a.startswith(f"--from={build_stage[0]}")]
run_text = " ".join(a for w, a in build_steps if w == "RUN" and "cargo build" in a)
built = set(re.findall(r"--bin\s+(\S+)", run_text))
copied = set(re.findall(r"target/release/(\S+)", run_text))
for b in built | copied:
    if b not in bins:
        problems.append(f"Dockerfile names binary {b}, which the workspace does not build")
if copied != built:
    problems.append(f"Dockerfile builds {sorted(built)} but copies {sorted(copied)}")

image_dir = pathlib.Path(os.environ.get("DEPLOY_IMAGE_DIR", root / "target" / "deploy-image"))
if build and build_stage is not None:
    # The build stage, step by step, in an empty directory standing for its WORKDIR.
    context_copy = image_dir / "src"
    out_dir = image_dir / "out"
    cache_target = image_dir / "target"
    shutil.rmtree(context_copy, ignore_errors=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    context_copy.mkdir(parents=True)
    cache_target.mkdir(parents=True, exist_ok=True)
    excluded = dockerignore_matcher(root / ".dockerignore")
    workdir = None
    env = dict(os.environ)
    env.pop("CARGO_TARGET_DIR", None)

    def local(path):
        """The image path `path` (absolute, or relative to WORKDIR) on this machine."""
        p = pathlib.PurePosixPath(path if path.startswith("/") else f"{workdir}/{path}")
        if p == pathlib.PurePosixPath("/out") or pathlib.PurePosixPath("/out") in p.parents:
            return out_dir / p.relative_to("/out")
        if workdir and (p == pathlib.PurePosixPath(workdir) or pathlib.PurePosixPath(workdir) in p.parents):
            return context_copy / p.relative_to(workdir)
        problems.append(f"Dockerfile build stage uses {path}, outside its WORKDIR and /out")
        return None

    started = time.monotonic()
    for word, arg in build_steps:
        if word == "WORKDIR":
            workdir = arg
        elif word == "ENV":
            key, _, value = arg.partition("=") if "=" in arg.split()[0] else arg.partition(" ")
            env[key.strip()] = value.strip().strip('"')
        elif word == "COPY":
            parts = [p for p in shlex.split(arg) if not p.startswith("--")]
            if arg.startswith("--from"):
                continue
            *sources, dest = parts
            for src in sources:
                base = local(dest)
                if base is None:
                    continue
                target = base / pathlib.Path(src).name if (dest.endswith("/") and (root / src).is_file()) else base
                copy_into(root, src, target, excluded)
        elif word == "RUN":
            if problems:
                break
            # Cache mounts: the cargo registry is this machine's (offline), the target
            # dir a kept directory, as Docker keeps its cache between builds.
            command = re.sub(r"--mount=\S+\s*", "", arg).strip()
            for mount in re.findall(r"--mount=type=cache,target=(\S+)", arg):
                if "/cargo/registry" in mount:
                    continue
                link = local(mount)
                if link is not None:
                    link.parent.mkdir(parents=True, exist_ok=True)
                    link.symlink_to(cache_target, target_is_directory=True)
            command = command.replace("cargo build", "cargo build --offline")
            command = re.sub(r"(?<![\w/.])/out\b", str(out_dir), command)
            print(f"deploy check: building the image's binaries in {context_copy}: {command}",
                  flush=True)
            r = subprocess.run(["sh", "-ec", command], cwd=context_copy, env=env)
            if r.returncode != 0:
                problems.append(f"the Dockerfile's build stage fails (exit {r.returncode}) "
                                "on exactly what it copies")
                break
    print(f"deploy check: image build stage took {time.monotonic() - started:.0f} s", flush=True)
    for spec in runtime_copy:
        src = shlex.split(spec)[1]
        if local(src) is not None and not local(src).exists():
            problems.append(f"the runtime stage copies {src} from the build, which it did not make")
    if not problems:
        made = {p.name for p in out_dir.iterdir()}
        if made != built:
            problems.append(f"the build stage leaves {sorted(made)} in /out, expected {sorted(built)}")
        else:
            print(f"deploy check: the image's binaries are in {out_dir}")

# ---- docker-compose.yml.
r = subprocess.run(["docker-compose", "-f", str(root / "docker-compose.yml"), "config", "-q"],
                   cwd=root, capture_output=True, text=True)
if r.returncode != 0:
    problems.append("docker-compose config: " + r.stderr.strip())
compose = yaml.safe_load((root / "docker-compose.yml").read_text())
prometheus = yaml.safe_load((root / "deploy" / "prometheus.yml").read_text())
scraped = {target for job in prometheus.get("scrape_configs", [])
           for static in job.get("static_configs", []) for target in static.get("targets", [])}
compose_runs = set()
for name, service in compose["services"].items():
    cmd = service.get("command")
    if isinstance(cmd, list) and cmd and cmd[0].startswith("gamehub"):
        compose_runs.add(cmd[0])
        if cmd[0] not in built:
            problems.append(f"compose service {name} runs {cmd[0]}, which the image does not contain")
        metrics = str((service.get("environment") or {}).get("GAMEHUB_METRICS_ADDR", ""))
        port = metrics.rpartition(":")[2]
        if port and f"{name}:{port}" not in scraped:
            problems.append(f"deploy/prometheus.yml does not scrape compose service {name} ({name}:{port})")
    test = service.get("healthcheck", {}).get("test", [])
    if len(test) > 1 and test[0] == "CMD" and test[1].startswith("gamehub"):
        if test[1] not in built:
            problems.append(f"compose service {name} health-checks with {test[1]}, not in the image")
    for volume in service.get("volumes", []):
        src = volume.split(":")[0]
        if src.startswith("./") and not (root / src).exists():
            problems.append(f"compose service {name} mounts {src}, which does not exist")

# ---- Kubernetes.
k8s = root / "deploy" / "kubernetes"
try:
    import kubernetes_validate
except ImportError:
    kubernetes_validate = None
    problems.append("kubernetes-validate is not installed (pip install kubernetes-validate)")
kustomization = yaml.safe_load((k8s / "kustomization.yaml").read_text())
listed = set(kustomization.get("resources", []))
manifests = {p.name for p in k8s.glob("*.yaml")} - {"kustomization.yaml"}
for missing in sorted(manifests - listed):
    problems.append(f"kustomization.yaml does not list {missing}")
for extra in sorted(listed - manifests):
    problems.append(f"kustomization.yaml lists {extra}, which does not exist")
for generator in kustomization.get("configMapGenerator", []):
    for entry in generator.get("files", []):
        source = entry.split("=", 1)[-1]
        if not (k8s / source).is_file():
            problems.append(f"kustomization.yaml: ConfigMap {generator['name']} reads {source}, "
                            "which does not exist")
validated = 0
k8s_runs = set()
# Alternatives kept beside the listed manifests (e.g. single-redis/redis.yaml) validate too.
for path in sorted(k8s.rglob("*.yaml")):
    if path.name == "kustomization.yaml":
        continue
    for doc in yaml.safe_load_all(path.read_text()):
        if not doc:
            continue
        if kubernetes_validate is not None:
            try:
                kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)
                validated += 1
            except kubernetes_validate.ValidationError as e:
                where = "/".join(str(p) for p in e.path)
                problems.append(f"{path.name}: {doc.get('kind')} {doc.get('metadata', {}).get('name')}: "
                                f"{where}: {e.message}")
            except kubernetes_validate.SchemaNotFoundError as e:
                problems.append(f"{path.name}: {e.message}")
        if doc.get("kind") != "Deployment":
            continue
        for c in doc["spec"]["template"]["spec"]["containers"]:
            if not c["image"].startswith("gamehub"):
                continue  # another image (the front door's nginx): not built here
            k8s_runs.add(c["command"][0])
            if c["command"][0] not in built:
                problems.append(f"{path.name}: runs {c['command'][0]}, not in the image")
            ports = {p["containerPort"] for p in c["ports"]}
            for probe in ("readinessProbe", "livenessProbe"):
                # kubelet's own gRPC probes speak no TLS: with TLS, the binary's `health`
                # command (the gRPC health protocol over TLS, as compose's healthchecks).
                port = c.get(probe, {}).get("grpc", {}).get("port")
                command = c.get(probe, {}).get("exec", {}).get("command", [])
                health = command[:1] == c["command"][:1] and command[1:2] == ["health"]
                if port not in ports and not health:
                    problems.append(f"{path.name}: {probe} is neither a gRPC probe on a container "
                                    "port nor the binary's health command")

for service in sorted(service_bins):
    if service not in built:
        problems.append(f"the Dockerfile does not build the service {service}")
    if service not in compose_runs:
        problems.append(f"no docker-compose.yml service runs {service}")
    if service not in k8s_runs:
        problems.append(f"no Kubernetes Deployment in deploy/kubernetes runs {service}")

for p in problems:
    print("deploy check:", p)
print(f"deploy check: {len(problems)} problem(s); {len(built)} binaries "
      f"({len(service_bins)} services), {len(compose['services'])} compose services, "
      f"{validated} Kubernetes objects validated")
sys.exit(1 if problems else 0)
