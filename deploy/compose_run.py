#!/usr/bin/env python3
"""Runs docker-compose.yml's topology without Docker, and plays both games through it.

Reads the compose file as compose resolves it (`docker-compose config`: variables
interpolated from defaults, anchors merged) and starts:

- each gamehub service (a `command` naming a gamehub binary) as its own process, from the
  image's binaries (`--bin-dir`, by default what deploy/check.py built), with exactly the
  environment compose gives it;
- `postgres` as the image creates it: a new cluster whose superuser is POSTGRES_USER with
  POSTGRES_PASSWORD (password auth over TCP), and the database POSTGRES_DB;
- `redis` with compose's own command line;
- `front-door` (an nginx image) as Debian's nginx with the configuration file compose
  mounts at /etc/nginx/nginx.conf;

in depends_on order, each one only once what it depends on passes compose's healthcheck
command (the same command, in the service's environment; `start_period + retries *
interval` bounds the wait, polled every second instead of every `interval`). Then it plays
one Gomoku game and one Dou Dizhu deal (`gamehub demo`, in the environment of the
service that runs matchmaking, so with compose's service URLs), plays them again through
the front door (every service URL set to it, as a player's client has them), checks that
gRPC-Web over HTTP/1.1 passes the door and that a path it does not route is answered
UNIMPLEMENTED, checks that the tournament service answers ListTournaments (from its
database) both at compose's GAMEHUB_TOURNAMENTS_URL and through the front door, and
checks in the compose database that the ledger settled every game.

The one translation: containers have a network namespace each, processes here share one.
So every (service, port) a service listens on (a `0.0.0.0:PORT` value in its environment,
5432 for postgres, 6379 or `--port` for redis, each `listen` of nginx's configuration)
gets a free local port, and every `service:port` in any environment value (and in
nginx's configuration) is rewritten to `127.0.0.1:` that port. A
`service:port` where nothing in the topology listens (a wrong port or host name) is a
problem reported here, before anything runs; the services compose runs only for
telemetry (otel-collector, jaeger, prometheus) are not started, and addresses of theirs
point at a closed port. Published `ports` must be ports the service listens on.

TLS: a directory a gamehub service bind-mounts (the certificates, ./deploy/tls at
/etc/gamehub/tls) is made for the run with `gamehub tls generate` in the run's own
directory (the working tree's copy is neither needed nor touched), and every environment
value under the mount's target is rewritten to that directory; a file named there that
`gamehub tls generate` does not make (a service's certificate it does not know) is a
problem reported before anything runs, as the operator's `gamehub tls generate --dir
deploy/tls` would not make it either. The certificates name 127.0.0.1, so the rewritten
https:// URLs verify as compose's service names do.

Usage: deploy/compose_run.py [--bin-dir DIR]
Environment: DEPLOY_PORT_BASE (first local port to try; default: a random one below the
             kernel's ephemeral range, see local_port_base),
             DEPLOY_IMAGE_DIR (as for deploy/check.py; the default bin dir is its out/).
Exits non-zero with the problem and the tail of each service's log.
"""
import glob
import os
import pathlib
import random
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

import yaml

root = pathlib.Path(__file__).resolve().parent.parent
TELEMETRY_ONLY = {"otel-collector", "jaeger", "prometheus"}
NGINX_CONF = "/etc/nginx/nginx.conf"


def fail(message):
    print(f"compose run: {message}", flush=True)
    raise SystemExit(1)


def duration(text, default):
    """Compose's durations: 5s, 1m30s, 500ms."""
    if text is None:
        return default
    total = 0.0
    for value, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s|us)", str(text)):
        total += float(value) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}[unit]
    return total


def local_port_base():
    """A first port to try, below the kernel's ephemeral range. A port the kernel handed
    out free (bind to port 0) sits inside that range: between choosing it and the
    service binding it, any outbound connection (a service to Redis, PostgreSQL or its
    peers) may take it as its local port, and the service then fails with "Address
    already in use" (seen once in CI, by the last service to start). Ports below the
    range are never given to outbound connections. Random within 2,000 ports, so two
    runs at once rarely start at the same place (taken ports are skipped anyway)."""
    low = 32768
    try:
        low = int(pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    top = max(low - 200, 1224)
    return random.randrange(max(top - 2000, 1024), top)


def main():
    args = sys.argv[1:]
    image_dir = pathlib.Path(os.environ.get("DEPLOY_IMAGE_DIR", root / "target" / "deploy-image"))
    bin_dir = pathlib.Path(args[args.index("--bin-dir") + 1]) if "--bin-dir" in args else image_dir / "out"
    bin_dir = bin_dir.resolve()
    if not (bin_dir / "gamehub").exists():
        fail(f"no gamehub binaries in {bin_dir} (run deploy/check.py first, or pass --bin-dir)")

    # Compose interpolates ${VAR:-default} from the caller's environment: interpolate
    # from a clean one, so the file's own defaults are what is checked.
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("GAMEHUB_", "DATABASE_", "REDIS_", "OTEL_", "RUST_LOG", "PG"))}
    resolved = subprocess.run(
        ["docker-compose", "-f", str(root / "docker-compose.yml"), "config"],
        cwd=root, env=clean, capture_output=True, text=True)
    if resolved.returncode != 0:
        fail("docker-compose config: " + resolved.stderr.strip())
    services = yaml.safe_load(resolved.stdout)["services"]

    def kind(name):
        cmd = services[name].get("command") or []
        if isinstance(cmd, str):
            cmd = shlex.split(cmd)
        image = services[name].get("image", "")
        if cmd and cmd[0].startswith("gamehub"):
            return "gamehub"
        if image.startswith("postgres"):
            return "postgres"
        if image.startswith("redis"):
            return "redis"
        if image.split("/")[-1].startswith(("nginx", "nginx-unprivileged")):
            return "nginx"
        if name in TELEMETRY_ONLY:
            return "telemetry"
        fail(f"service {name} ({image}) is neither a gamehub service, postgres, redis nor telemetry")

    kinds = {name: kind(name) for name in services}

    def nginx_conf(name):
        """The configuration file compose mounts into an nginx service."""
        for volume in services[name].get("volumes") or []:
            if isinstance(volume, dict):
                source, target = volume.get("source"), volume.get("target")
            else:
                source, target = (str(volume).split(":") + [None])[:2]
            if target == NGINX_CONF:
                return pathlib.Path(source if os.path.isabs(source) else root / source)
        fail(f"{name} mounts no {NGINX_CONF}")

    # ---- Ports: what each service listens on, and a local port for each.
    next_port = [int(os.environ.get("DEPLOY_PORT_BASE") or local_port_base())]

    def free_port():
        while True:
            with socket.socket() as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    s.bind(("127.0.0.1", next_port[0]))
                except OSError:
                    next_port[0] += 1
                    continue
                port = s.getsockname()[1]
            if next_port[0]:
                next_port[0] += 1
            return port

    listens = {}
    for name, svc in services.items():
        env = svc.get("environment") or {}
        if kinds[name] == "gamehub":
            ports = {int(m.group(1)) for v in env.values()
                     for m in [re.fullmatch(r"(?:0\.0\.0\.0|\[::\]|::):(\d+)", str(v))] if m}
        elif kinds[name] == "postgres":
            ports = {5432}
        elif kinds[name] == "redis":
            cmd = svc.get("command") or ["redis-server"]
            ports = {int(cmd[cmd.index("--port") + 1]) if "--port" in cmd else 6379}
        elif kinds[name] == "nginx":
            ports = {int(p) for p in re.findall(r"^\s*listen\s+(?:[\d.]+:)?(\d+)",
                                                 nginx_conf(name).read_text(), re.M)}
        else:
            ports = set()
        listens[name] = {p: free_port() for p in sorted(ports)}
    closed_port = free_port()  # nothing listens there: telemetry's addresses

    problems = []
    for name, svc in services.items():
        for published in svc.get("ports") or []:
            target = int(published["target"]) if isinstance(published, dict) else int(str(published).split(":")[-1])
            if kinds[name] != "telemetry" and target not in listens[name]:
                problems.append(f"{name} publishes port {target}, where it does not listen")

    def rewrite(owner, value):
        value = str(value)
        m = re.fullmatch(r"(?:0\.0\.0\.0|\[::\]|::):(\d+)", value)
        if m:
            return f"127.0.0.1:{listens[owner][int(m.group(1))]}"

        def to_local(m):
            host, port = m.group(1), int(m.group(2))
            if kinds[host] == "telemetry":
                return f"127.0.0.1:{closed_port}"
            if port not in listens[host]:
                problems.append(f"{owner}: {m.group(0)} names a port {host} does not listen on "
                                f"(it listens on {sorted(listens[host]) or 'none'})")
                return f"127.0.0.1:{closed_port}"
            return f"127.0.0.1:{listens[host][port]}"
        names = "|".join(re.escape(n) for n in sorted(services, key=len, reverse=True))
        return re.sub(rf"(?<![\w.-])({names}):(\d+)\b", to_local, value)

    # ---- Bind mounts of gamehub services (the TLS certificates): made for this run.
    mounts_dir = pathlib.Path(tempfile.mkdtemp(prefix="deploy-compose-mounts-"))
    mounts = {}  # target in the container -> directory here
    for name, svc in services.items():
        if kinds[name] != "gamehub":
            continue
        for volume in svc.get("volumes") or []:
            if isinstance(volume, dict):
                source, target = volume.get("source"), volume.get("target")
            else:
                parts = str(volume).split(":")
                source, target = (parts[0], parts[1]) if len(parts) > 1 else (None, parts[0])
            if not source or not target or target in mounts:
                continue
            local = mounts_dir / f"mount{len(mounts)}"
            made = subprocess.run([str(bin_dir / "gamehub"), "tls", "generate", "--dir", str(local)],
                                  capture_output=True, text=True)
            if made.returncode != 0:
                fail(f"gamehub tls generate for {name}'s {target}: {made.stderr.strip()}")
            print(f"compose run: {target} (from {source}) made here by gamehub tls generate", flush=True)
            mounts[target] = local

    def unmount(value):
        for target, local in mounts.items():
            if value == target or value.startswith(target.rstrip("/") + "/"):
                return str(local) + value[len(target.rstrip("/")):]
        return value

    envs = {name: {k: unmount(rewrite(name, v)) for k, v in (svc.get("environment") or {}).items()}
            for name, svc in services.items()}
    # A file under a mount that this run's `gamehub tls generate` did not make would be
    # missing from the operator's deploy/tls too (a service not in its list of names).
    for name, svc in services.items():
        for key, value in (svc.get("environment") or {}).items():
            local = unmount(str(value))
            if local != str(value) and pathlib.PurePath(local).suffix and not os.path.exists(local):
                problems.append(f"{name}: {key}={value}, which `gamehub tls generate` does not make")
    for name, svc in services.items():
        if kinds[name] == "gamehub" and not svc.get("healthcheck", {}).get("test"):
            problems.append(f"{name} has no healthcheck")
        for dep, spec in (svc.get("depends_on") or {}).items():
            if dep not in services:
                problems.append(f"{name} depends on {dep}, which is not a service")
            elif kinds[dep] == "telemetry" and kinds[name] != "telemetry":
                problems.append(f"{name} depends on {dep}, which this run does not start")
    if problems:
        fail("; ".join(problems))

    run_dir = pathlib.Path(tempfile.mkdtemp(prefix="deploy-compose-"))
    procs = {}
    logs = {}
    started_order = []
    pg = {}

    def as_postgres(cmd):
        """PostgreSQL refuses to run as root; the image runs it as `postgres`."""
        return (["runuser", "-u", "postgres", "--"] + cmd) if os.geteuid() == 0 else cmd

    def start(name):
        svc = services[name]
        log = open(run_dir / f"{name}.log", "w")
        logs[name] = run_dir / f"{name}.log"
        env = dict(clean, **envs[name])
        if kinds[name] == "gamehub":
            cmd = svc["command"]
            env["PATH"] = f"{bin_dir}:{env.get('PATH', '')}"
            procs[name] = subprocess.Popen([str(bin_dir / cmd[0])] + cmd[1:], env=env,
                                           stdout=log, stderr=subprocess.STDOUT,
                                           start_new_session=True)
        elif kinds[name] == "redis":
            cmd = svc.get("command") or ["redis-server"]
            data = run_dir / "redis-data"
            data.mkdir()
            port = next(iter(listens[name].values()))
            procs[name] = subprocess.Popen(
                cmd + ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
                       "--daemonize", "no"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        elif kinds[name] == "nginx":
            # The mounted configuration with this run's addresses: listens on local ports,
            # the services' names rewritten, the certificates from the run's directory,
            # the pid file in the run's own nginx directory.
            nginx_dir = run_dir / name
            nginx_dir.mkdir()
            text = rewrite(name, nginx_conf(name).read_text())
            text = re.sub(r"^(\s*listen\s+)(?:[\d.]+:)?(\d+)",
                          lambda m: f"{m.group(1)}127.0.0.1:{listens[name][int(m.group(2))]}",
                          text, flags=re.M)
            for target, local in mounts.items():
                text = text.replace(target, str(local))
            text = re.sub(r"^pid\s+[^;]+;", f"pid {nginx_dir}/nginx.pid;", text, flags=re.M)
            conf = nginx_dir / "nginx.conf"
            conf.write_text(text)
            nginx = shutil.which("nginx") or "/usr/sbin/nginx"
            if not os.path.exists(nginx):
                fail("nginx is not installed (Debian: apt-get install nginx-light)")
            procs[name] = subprocess.Popen(
                [nginx, "-c", str(conf), "-p", str(nginx_dir), "-e", str(nginx_dir / "error.log"),
                 "-g", "daemon off;"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            logs[f"{name} (error log)"] = nginx_dir / "error.log"
        elif kinds[name] == "postgres":
            pg_bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                            key=lambda p: int(p.split("/")[-2]))
            pg_bin = pathlib.Path(pg_bin[-1]) if pg_bin else pathlib.Path(
                os.path.dirname(shutil.which("initdb") or "/usr/bin/initdb"))
            user = env.get("POSTGRES_USER", "postgres")
            password = env.get("POSTGRES_PASSWORD", "")
            db = env.get("POSTGRES_DB", user)
            data = run_dir / "pg-data"
            pwfile = run_dir / "pg-password"
            pwfile.write_text(password + "\n")
            if os.geteuid() == 0:
                shutil.chown(run_dir, "postgres")
                shutil.chown(pwfile, "postgres")
            subprocess.run(as_postgres([str(pg_bin / "initdb"), "-D", str(data), "-U", user,
                                        f"--pwfile={pwfile}", "--auth-local=trust",
                                        "--auth-host=scram-sha-256", "-E", "UTF8"]),
                           check=True, stdout=log, stderr=subprocess.STDOUT)
            port = next(iter(listens[name].values()))
            procs[name] = subprocess.Popen(
                as_postgres([str(pg_bin / "postgres"), "-D", str(data), "-p", str(port),
                             "-c", "listen_addresses=127.0.0.1", "-k", str(run_dir)]),
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            pg.update(bin=pg_bin, port=port, user=user, db=db)
            # The image's entrypoint creates POSTGRES_DB before it reports ready.
            deadline = time.monotonic() + 60
            while subprocess.run([str(pg_bin / "pg_isready"), "-q", "-h", str(run_dir), "-p",
                                  str(port)]).returncode != 0:
                if procs[name].poll() is not None or time.monotonic() > deadline:
                    fail("postgres did not start")
                time.sleep(0.2)
            if db != "postgres":
                subprocess.run([str(pg_bin / "createdb"), "-h", str(run_dir), "-p", str(port),
                                "-U", user, db], check=True, stdout=log, stderr=subprocess.STDOUT)
        started_order.append(name)
        print(f"compose run: started {name} ({kinds[name]}) on "
              + ", ".join(f"{p}->127.0.0.1:{q}" for p, q in listens[name].items()), flush=True)

    def healthcheck_command(name):
        test = services[name].get("healthcheck", {}).get("test")
        if not test or test == ["NONE"]:
            return None
        env = dict(clean, **envs[name])
        env["PATH"] = f"{bin_dir}:{env.get('PATH', '')}"
        if kinds[name] == "postgres":
            env.update(PGHOST="127.0.0.1", PGPORT=str(listens[name][5432]))
        if isinstance(test, str):
            test = ["CMD-SHELL", test]
        if test[0] == "CMD-SHELL":
            cmd = ["sh", "-c", test[1]]
        else:
            cmd = list(test[1:])
        if kinds[name] == "redis" and cmd[0] == "redis-cli":
            # redis-cli has no variable for its port: the one argument this run adds.
            cmd[1:1] = ["-h", "127.0.0.1", "-p", str(next(iter(listens[name].values())))]
        if kinds[name] == "nginx":
            # A URL of the container's own (curl https://localhost:8443/...): its local port.
            cmd = [re.sub(r"(?:localhost|127\.0\.0\.1):(\d+)",
                          lambda m: f"127.0.0.1:{listens[name].get(int(m.group(1)), m.group(1))}", a)
                   for a in cmd]
        return cmd, env

    def wait_healthy(name):
        check = healthcheck_command(name)
        if check is None:
            return
        cmd, env = check
        hc = services[name]["healthcheck"]
        interval = duration(hc.get("interval"), 30)
        timeout = duration(hc.get("timeout"), 30)
        retries = int(hc.get("retries", 3))
        bound = duration(hc.get("start_period"), 0) + retries * interval
        began = time.monotonic()
        while True:
            if procs[name].poll() is not None:
                fail(f"{name} exited ({procs[name].returncode}) before it was healthy")
            try:
                r = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout)
                if r.returncode == 0:
                    print(f"compose run: {name} healthy after {time.monotonic() - began:.1f} s "
                          f"({' '.join(services[name]['healthcheck']['test'][1:])})", flush=True)
                    return
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() - began > bound:
                fail(f"{name} not healthy within {bound:.0f} s by its healthcheck")
            time.sleep(min(interval, 1.0))

    def stop_all():
        for name in reversed(started_order):
            p = procs.get(name)
            if p and p.poll() is None:
                # PostgreSQL's SIGTERM waits for clients to leave; SIGINT is its fast stop.
                sig = signal.SIGINT if kinds[name] == "postgres" else signal.SIGTERM
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass
        for name in reversed(started_order):
            p = procs.get(name)
            if p:
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()

    def grpc_web(url, path, env):
        """One unary gRPC-Web call over HTTP/1.1 with an empty request and a player token:
        (response headers, [(frame flag, frame data)])."""
        token = subprocess.run([str(bin_dir / "gamehub"), "token", "compose-run-web"], env=env,
                               capture_output=True, text=True, check=True).stdout.strip()
        tls = ssl.create_default_context(cafile=env["GAMEHUB_TLS_CA"])
        request = urllib.request.Request(
            url + path, data=b"\0\0\0\0\0", method="POST",
            headers={"content-type": "application/grpc-web+proto", "x-grpc-web": "1",
                     "authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, context=tls, timeout=30) as answer:
            headers, body = dict(answer.headers), answer.read()
        frames, at = [], 0
        while at + 5 <= len(body):
            size = int.from_bytes(body[at + 1:at + 5], "big")
            frames.append((body[at], body[at + 5:at + 5 + size]))
            at += 5 + size
        return headers, frames

    def grpc_status(headers, frames):
        """The call's status: in the trailer frame, or in the headers of a trailers-only
        answer."""
        trailers = b"".join(data for flag, data in frames if flag & 0x80).decode(errors="replace")
        m = re.search(r"grpc-status:\s*(\d+)", trailers)
        if m:
            return m.group(1)
        return {k.lower(): v for k, v in headers.items()}.get("grpc-status")

    def front_door_checks(door, env):
        """Both games again with every service URL at the front door, as a player's client
        has them; gRPC-Web over HTTP/1.1 through it; a path it does not route."""
        url = f"https://127.0.0.1:{next(iter(listens[door].values()))}"
        door_env = dict(env, **{f"GAMEHUB_{s}_URL": url
                                for s in ("MATCHMAKING", "GOMOKU", "DOUDIZHU", "LEDGER",
                                          "TOURNAMENTS")})
        began = time.monotonic()
        demo = subprocess.run([str(bin_dir / "gamehub"), "demo", "--think-ms", "0"],
                              env=door_env, capture_output=True, text=True, timeout=600)
        (run_dir / "demo-front-door.log").write_text(demo.stdout + demo.stderr)
        logs["demo through the front door"] = run_dir / "demo-front-door.log"
        if demo.returncode != 0:
            fail(f"gamehub demo through {door} failed (exit {demo.returncode}): "
                 f"{demo.stderr.strip()[-2000:]}")
        print(f"compose run: gamehub demo played both games through {door} ({url}) in "
              f"{time.monotonic() - began:.1f} s", flush=True)

        headers, frames = grpc_web(url, "/gamehub.matchmaking.v1.MatchmakingService/ListRooms", env)
        rooms = b"".join(data for flag, data in frames if not flag & 0x80)
        if grpc_status(headers, frames) != "0" or b"gomoku-renju" not in rooms:
            fail(f"gRPC-Web ListRooms through {door}: headers {headers}, frames {frames!r}, "
                 f"{len(rooms)} bytes of rooms")
        headers, frames = grpc_web(url, "/gamehub.operator.v1.TableOperatorService/ListDeadLetters", env)
        status = grpc_status(headers, frames)
        if status != "12":
            fail(f"a path {door} does not route: grpc-status {status} (UNIMPLEMENTED, 12, expected)")
        print(f"compose run: gRPC-Web over HTTP/1.1 through {door}: ListRooms answered "
              f"({len(rooms)} bytes); an unrouted path answered UNIMPLEMENTED", flush=True)

    def tournament_checks(door, env):
        """ListTournaments (it reads the service's own schema) answers OK at the URL compose
        gives the services, and through the front door as a player's client calls it."""
        urls = {"GAMEHUB_TOURNAMENTS_URL": env.get("GAMEHUB_TOURNAMENTS_URL")}
        if door:
            urls[door] = f"https://127.0.0.1:{next(iter(listens[door].values()))}"
        for where, url in urls.items():
            if not url:
                fail("the services' environment has no GAMEHUB_TOURNAMENTS_URL")
            headers, frames = grpc_web(
                url, "/gamehub.tournament.v1.TournamentService/ListTournaments", env)
            if grpc_status(headers, frames) != "0":
                fail(f"ListTournaments at {where} ({url}): headers {headers}, frames {frames!r}")
        print(f"compose run: ListTournaments answered at {' and through '.join(urls)}", flush=True)

    ok = False
    try:
        # depends_on order; a service starts once its dependencies' conditions hold.
        pending = [n for n in services if kinds[n] != "telemetry"]
        healthy = set()
        while pending:
            ready = [n for n in pending
                     if all(d in healthy or (spec or {}).get("condition") != "service_healthy"
                            and d in started_order
                            for d, spec in (services[n].get("depends_on") or {}).items())]
            if not ready:
                fail(f"depends_on cannot be satisfied for {pending}")
            for name in ready:
                start(name)
                pending.remove(name)
            for name in ready:
                wait_healthy(name)
                healthy.add(name)

        # Both games, from the network's side: the environment of matchmaking's container.
        client = next(n for n in services if kinds[n] == "gamehub"
                      and services[n]["command"][0] == "gamehub-matchmaking")
        env = dict(clean, **envs[client])
        env.pop("GAMEHUB_METRICS_ADDR", None)
        started = time.monotonic()
        demo = subprocess.run([str(bin_dir / "gamehub"), "demo", "--think-ms", "0"], env=env,
                              capture_output=True, text=True, timeout=600)
        (run_dir / "demo.log").write_text(demo.stdout + demo.stderr)
        logs["demo"] = run_dir / "demo.log"
        if demo.returncode != 0:
            fail(f"gamehub demo failed (exit {demo.returncode}): {demo.stderr.strip()[-2000:]}")
        print(f"compose run: gamehub demo played both games in {time.monotonic() - started:.1f} s",
              flush=True)
        demos = 1
        door = next((n for n in services if kinds[n] == "nginx"), None)
        if door:
            front_door_checks(door, env)
            demos += 1
        tournament_checks(door, env)

        # The ledger's own record, read as compose's role from compose's database.
        # One row per settled game (the ledger's idempotency key), with its players.
        query = ("SELECT game_type, count(*) FROM games g WHERE EXISTS "
                 "(SELECT 1 FROM game_players p WHERE p.game_id = g.game_id) GROUP BY 1 ORDER BY 1")
        out = subprocess.run([str(pg["bin"] / "psql"), "-h", "127.0.0.1", "-p", str(pg["port"]),
                              "-U", pg["user"], "-d", pg["db"], "-Atc", query],
                             env=dict(clean, PGPASSWORD=services["postgres"]["environment"]
                                      .get("POSTGRES_PASSWORD", "")),
                             capture_output=True, text=True, check=True).stdout
        settled = dict(line.split("|") for line in out.split())
        if int(settled.get("1", "0")) < demos or int(settled.get("2", "0")) < demos:
            fail(f"the ledger did not settle every game of the {demos} demo run(s): "
                 f"settled per game type {settled}")
        print(f"compose run: settled in the ledger: {settled.get('1')} Gomoku game(s), "
              f"{settled.get('2')} Dou Dizhu deal(s)", flush=True)
        ok = True
    finally:
        stop_all()
        if not ok:
            for name, path in logs.items():
                if not path.exists():
                    continue
                tail = path.read_text(errors="replace").splitlines()[-15:]
                print(f"---- {name} (last lines of {path})")
                print("\n".join(tail))
        else:
            shutil.rmtree(run_dir, ignore_errors=True)
        shutil.rmtree(mounts_dir, ignore_errors=True)
        print("compose run: 1 passed, 0 failed" if ok else "compose run: 0 passed, 1 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
