#!/usr/bin/env python3
"""Checks the deployment files with what runs without a Docker engine.

- docker-compose.yml validates (`docker-compose config`);
- every path the Dockerfile COPYs from the build context exists;
- every binary the Dockerfile builds, and every binary docker-compose.yml and the
  Kubernetes manifests run, is a [[bin]] target of the workspace (cargo metadata);
- every file docker-compose.yml mounts exists;
- the Kubernetes manifests parse, and their probes use gRPC on the container's port.

Exits non-zero with one line per problem.
"""
import json
import pathlib
import re
import subprocess
import sys

import yaml

root = pathlib.Path(__file__).resolve().parent.parent
problems = []

# Binaries the workspace builds.
meta = json.loads(subprocess.run(
    ["cargo", "metadata", "--no-deps", "--format-version", "1"],
    cwd=root, check=True, capture_output=True, text=True).stdout)
bins = {t["name"] for p in meta["packages"] for t in p["targets"] if "bin" in t["kind"]}

# Dockerfile.
dockerfile = (root / "deploy" / "Dockerfile").read_text()
for line in dockerfile.splitlines():
    m = re.match(r"\s*COPY\s+(?!--from)(.*)", line)
    if m:
        parts = [p for p in m.group(1).split() if not p.startswith("--")]
        for src in parts[:-1]:
            if not (root / src).exists():
                problems.append(f"Dockerfile copies {src}, which does not exist")
built = set(re.findall(r"--bin\s+(\S+)", dockerfile))
copied = set(re.findall(r"target/release/(\S+)", dockerfile))
for b in built | copied:
    if b not in bins:
        problems.append(f"Dockerfile names binary {b}, which the workspace does not build")
if copied != built:
    problems.append(f"Dockerfile builds {sorted(built)} but copies {sorted(copied)}")

# docker-compose.yml.
r = subprocess.run(["docker-compose", "-f", str(root / "docker-compose.yml"), "config", "-q"],
                   cwd=root, capture_output=True, text=True)
if r.returncode != 0:
    problems.append("docker-compose config: " + r.stderr.strip())
compose = yaml.safe_load((root / "docker-compose.yml").read_text())
for name, service in compose["services"].items():
    for key in ("command",):
        cmd = service.get(key)
        if isinstance(cmd, list) and cmd and cmd[0].startswith("gamehub"):
            if cmd[0] not in built:
                problems.append(f"compose service {name} runs {cmd[0]}, which the image does not contain")
    test = service.get("healthcheck", {}).get("test", [])
    if len(test) > 1 and test[0] == "CMD" and test[1].startswith("gamehub"):
        if test[1] not in built:
            problems.append(f"compose service {name} health-checks with {test[1]}, not in the image")
    for volume in service.get("volumes", []):
        src = volume.split(":")[0]
        if src.startswith("./") and not (root / src).exists():
            problems.append(f"compose service {name} mounts {src}, which does not exist")

# Kubernetes.
for path in sorted((root / "deploy" / "kubernetes").glob("*.yaml")):
    for doc in yaml.safe_load_all(path.read_text()):
        if not doc or doc.get("kind") != "Deployment":
            continue
        for c in doc["spec"]["template"]["spec"]["containers"]:
            if c["command"][0] not in built:
                problems.append(f"{path.name}: runs {c['command'][0]}, not in the image")
            ports = {p["containerPort"] for p in c["ports"]}
            for probe in ("readinessProbe", "livenessProbe"):
                port = c.get(probe, {}).get("grpc", {}).get("port")
                if port not in ports:
                    problems.append(f"{path.name}: {probe} is not a gRPC probe on a container port")

for p in problems:
    print("deploy check:", p)
print(f"deploy check: {len(problems)} problem(s); {len(built)} binaries, "
      f"{len(compose['services'])} compose services")
sys.exit(1 if problems else 0)
