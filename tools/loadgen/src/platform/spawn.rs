//! `--spawn`: the four services as separate processes (the release binaries next to
//! this one) on free ports, over a scratch database and a key prefix of the run's own;
//! their CPU time and resident memory sampled from `/proc`; settlements counted from
//! their metrics; and the `redis-benchmark` and `pgbench` baselines of the same Redis and
//! PostgreSQL measured right after the load. With `--tls-dir` every service serves TLS
//! and every call (the load's and the services' own) is made over it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use gamehub_drive::api::Endpoints;
use gamehub_platform::config::CommonConfig;

use super::{LoadOptions, ProcessCost, Report, run};
use crate::baseline::{self, Pgbench};
use crate::redis_stats::CommandStats;

/// A service process started by [`run_spawned`].
struct Spawned {
    name: &'static str,
    child: Child,
}

fn free_port() -> anyhow::Result<SocketAddr> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?)
}

/// What one sample of a process reads from /proc.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    /// CPU ticks, user + system.
    ticks: u64,
    /// Resident memory, KiB.
    rss_kib: u64,
    /// Nanoseconds its threads waited on a run queue.
    run_delay_ns: u64,
}

impl std::ops::Add for Sample {
    type Output = Sample;
    fn add(self, o: Sample) -> Sample {
        Sample {
            ticks: self.ticks + o.ticks,
            rss_kib: self.rss_kib + o.rss_kib,
            run_delay_ns: self.run_delay_ns + o.run_delay_ns,
        }
    }
}

/// A process's [`Sample`].
fn proc_sample(pid: u32) -> Option<Sample> {
    let (ticks, rss_kib) = ticks_and_rss(pid)?;
    Some(Sample {
        ticks,
        rss_kib,
        run_delay_ns: run_delay_ns(pid),
    })
}

/// The summed [`Sample`] of every process whose name (/proc/PID/comm) is `name`: all of
/// Redis's servers, all of PostgreSQL's processes (its backends among them).
fn named_sample(name: &str) -> Option<Sample> {
    let mut total: Option<Sample> = None;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        if comm.trim() == name
            && let Some(sample) = proc_sample(pid)
        {
            total = Some(total.unwrap_or_default() + sample);
        }
    }
    total
}

/// Nanoseconds the threads of `pid` waited on a run queue (the second field of each
/// `/proc/PID/task/TID/schedstat`); 0 when the kernel keeps no schedstats.
fn run_delay_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

/// CPU ticks (user + system) and RSS (KiB) of a process, from /proc.
fn ticks_and_rss(pid: u32) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()?;
    Some((ticks, rss))
}

/// Clock ticks per second of /proc CPU times.
const CLOCK_TICKS: f64 = 100.0;

/// Starts the four services as separate processes (binaries next to this one), runs the
/// load, measures the baselines, and stops them. With `tls_dir` (made by `gamehub tls
/// generate`) they serve TLS, and this process's calls trust its `ca.pem`.
pub async fn run_spawned(
    config: &CommonConfig,
    options: &LoadOptions,
    warm_up: Duration,
    postgres_server: &str,
    tls_dir: Option<&Path>,
    front_door: Option<&Path>,
) -> anyhow::Result<Report> {
    if let Some(dir) = tls_dir {
        let client = gamehub_platform::tls::ClientTlsFiles {
            ca: Some(dir.join("ca.pem")),
            identity: None,
        };
        if !client.install_process() {
            anyhow::bail!("--tls-dir: the TLS client settings were already in use");
        }
    }
    let dir: PathBuf = std::env::current_exe()?
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| anyhow::anyhow!("cannot locate the service binaries"))?;
    let id = &uuid::Uuid::new_v4().simple().to_string()[..10];
    let database = format!("loadgen_{id}");
    let addrs: Vec<SocketAddr> = (0..4).map(|_| free_port()).collect::<anyhow::Result<_>>()?;
    let metrics: Vec<SocketAddr> = (0..4).map(|_| free_port()).collect::<anyhow::Result<_>>()?;
    let scheme = if tls_dir.is_some() { "https" } else { "http" };
    let url = |a: SocketAddr| format!("{scheme}://{a}");
    let endpoints = Endpoints {
        matchmaking: url(addrs[0]),
        gomoku: url(addrs[1]),
        doudizhu: url(addrs[2]),
        ledger: url(addrs[3]),
        // Not spawned: the load plays no tournament.
        tournaments: gamehub_drive::api::NOT_STARTED.into(),
    };
    let mut common: Vec<(String, String)> = vec![
        (
            "DATABASE_URL".into(),
            format!("{postgres_server}/{database}"),
        ),
        (
            "REDIS_URL".into(),
            config.redis.urls().collect::<Vec<_>>().join(","),
        ),
        (
            "GAMEHUB_REDIS_CLUSTER".into(),
            config.redis.is_cluster().to_string(),
        ),
        ("GAMEHUB_REDIS_PREFIX".into(), format!("lg{id}")),
        (
            "GAMEHUB_JWT_SECRET".into(),
            // The processes verify each other's tokens with the key this one mints with.
            std::env::var("GAMEHUB_JWT_SECRET")
                .unwrap_or_else(|_| gamehub_platform::config::DEVELOPMENT_JWT_SECRET.to_owned()),
        ),
        (
            "GAMEHUB_MATCHMAKING_URL".into(),
            endpoints.matchmaking.clone(),
        ),
        ("GAMEHUB_GOMOKU_URL".into(), endpoints.gomoku.clone()),
        ("GAMEHUB_DOUDIZHU_URL".into(), endpoints.doudizhu.clone()),
        ("GAMEHUB_LEDGER_URL".into(), endpoints.ledger.clone()),
        ("GAMEHUB_PLAYER_RATE_PER_SECOND".into(), "0".into()),
        ("RUST_LOG".into(), "warn".into()),
    ];
    let path = |name: &str| -> String {
        tls_dir.map_or_else(String::new, |d| d.join(name).to_string_lossy().into_owned())
    };
    if tls_dir.is_some() {
        common.push(("GAMEHUB_TLS_CA".into(), path("ca.pem")));
    }
    let services: [(&'static str, &str, &str, usize); 4] = [
        ("ledger", "gamehub-ledger", "GAMEHUB_LEDGER_ADDR", 3),
        (
            "gomoku-referee",
            "gamehub-gomoku-referee",
            "GAMEHUB_GOMOKU_ADDR",
            1,
        ),
        (
            "doudizhu-dealer",
            "gamehub-doudizhu-dealer",
            "GAMEHUB_DOUDIZHU_ADDR",
            2,
        ),
        (
            "matchmaking",
            "gamehub-matchmaking",
            "GAMEHUB_MATCHMAKING_ADDR",
            0,
        ),
    ];
    let mut spawned: Vec<Spawned> = Vec::new();
    for (name, binary, addr_key, index) in services {
        // Each service its own certificate, served and presented to the others.
        let tls: Vec<(&str, String)> = match tls_dir {
            None => Vec::new(),
            Some(_) => vec![
                ("GAMEHUB_TLS_CERT", path(&format!("{name}.pem"))),
                ("GAMEHUB_TLS_KEY", path(&format!("{name}-key.pem"))),
                ("GAMEHUB_TLS_CLIENT_CERT", path(&format!("{name}.pem"))),
                ("GAMEHUB_TLS_CLIENT_KEY", path(&format!("{name}-key.pem"))),
            ],
        };
        let child = Command::new(dir.join(binary))
            .arg("serve")
            .envs(common.iter().cloned())
            .envs(tls)
            .env(addr_key, addrs[index].to_string())
            .env("GAMEHUB_METRICS_ADDR", metrics[index].to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                anyhow::anyhow!(
                    "starting {}: {e} (build the release binaries first)",
                    dir.join(binary).display()
                )
            })?;
        spawned.push(Spawned { name, child });
        let target = url(addrs[index]);
        let started = Instant::now();
        while !gamehub_platform::client::check_health(&target, "")
            .await
            .unwrap_or(false)
        {
            if started.elapsed() > Duration::from_secs(60) {
                anyhow::bail!("{name} did not become healthy at {target}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let metrics_urls = [
        format!("http://{}/metrics", metrics[1]),
        format!("http://{}/metrics", metrics[2]),
    ];
    // The players' calls: to the services, or all through the front door.
    let mut door: Option<(Child, PathBuf)> = None;
    let load_endpoints = match (front_door, tls_dir) {
        (Some(conf), Some(tls)) => match start_front_door(conf, tls, &addrs).await {
            Ok((child, scratch, url)) => {
                door = Some((child, scratch));
                Endpoints {
                    matchmaking: url.clone(),
                    gomoku: url.clone(),
                    doudizhu: url.clone(),
                    ledger: url,
                    tournaments: gamehub_drive::api::NOT_STARTED.into(),
                }
            }
            Err(e) => {
                stop_all(&mut spawned);
                return Err(e);
            }
        },
        _ => endpoints.clone(),
    };

    // Redis and PostgreSQL by their process names: every redis-server and every postgres
    // process of the machine (idle ones add nothing).
    let named: &[&str] = if door.is_some() {
        &["redis-server", "postgres", "nginx"]
    } else {
        &["redis-server", "postgres"]
    };
    let before: Vec<Option<Sample>> = spawned.iter().map(|s| proc_sample(s.child.id())).collect();
    let named_before: Vec<Option<Sample>> = named.iter().map(|n| named_sample(n)).collect();
    let own_before = proc_sample(std::process::id());
    let commands_before = CommandStats::read(&config.redis).await.ok();
    let wall = Instant::now();
    let result = run(&load_endpoints, config, options, warm_up, &metrics_urls).await;
    let elapsed = wall.elapsed().as_secs_f64();
    let after: Vec<Option<Sample>> = spawned.iter().map(|s| proc_sample(s.child.id())).collect();
    let named_after: Vec<Option<Sample>> = named.iter().map(|n| named_sample(n)).collect();
    let own_after = proc_sample(std::process::id());
    let commands_after = CommandStats::read(&config.redis).await.ok();

    let cost = |name: &str, before: Option<Sample>, after: Option<Sample>| {
        let (b, a) = (before.unwrap_or_default(), after.unwrap_or_default());
        ProcessCost {
            name: name.to_owned(),
            cpu_percent: a.ticks.saturating_sub(b.ticks) as f64 / CLOCK_TICKS / elapsed * 100.0,
            rss_mib: a.rss_kib as f64 / 1024.0,
            run_queue_percent: a.run_delay_ns.saturating_sub(b.run_delay_ns) as f64 / 1e9 / elapsed
                * 100.0,
        }
    };
    let mut processes: Vec<ProcessCost> = spawned
        .iter()
        .zip(before.iter().zip(&after))
        .map(|(s, (b, a))| cost(s.name, *b, *a))
        .collect();
    for (name, (b, a)) in ["redis", "postgresql", "front door (nginx)"]
        .iter()
        .zip(named_before.iter().zip(&named_after))
    {
        processes.push(cost(name, *b, *a));
    }
    processes.push(cost(super::LOADGEN_PROCESS, own_before, own_after));

    let (mut report, stop) = match result {
        Ok(ok) => ok,
        Err(e) => {
            stop_front_door(door.take());
            stop_all(&mut spawned);
            return Err(e);
        }
    };
    stop.store(true, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop_front_door(door.take());
    stop_all(&mut spawned);
    report.processes = processes;
    if let (Some(before), Some(after)) = (&commands_before, &commands_after) {
        report.redis_commands = Some(before.since(after, elapsed));
    }
    // The baselines, on the same Redis and PostgreSQL, right after the load.
    report.redis_eval_per_second =
        baseline::redis_eval(&config.redis, baseline::REDIS_EVAL_REQUESTS)
            .await
            .inspect_err(|e| tracing::warn!(error = %e, "redis-benchmark did not run"))
            .ok()
            .map(|eval| eval.per_second);
    let pgbench = Pgbench {
        scale: 10,
        clients: 32,
        seconds: 20,
    };
    report.pgbench_tps = pgbench
        .run(postgres_server)
        .await
        .inspect_err(|e| tracing::warn!(error = %e, "pgbench did not run"))
        .ok()
        .map(|measured| measured.tps);
    let _ = Command::new("psql")
        .args([
            &format!("{postgres_server}/postgres"),
            "-qc",
            &format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
        ])
        .output();
    Ok(report)
}

/// Starts nginx with the front door's configuration `conf`, rewritten for this run: the
/// services' names and ports (matchmaking:50051, …) to `addrs` (matchmaking, Gomoku,
/// Dou Dizhu, ledger), the certificates' directory to `tls`, its listener and pid file
/// to this run's. Returns the process, its scratch directory and the URL players call.
async fn start_front_door(
    conf: &Path,
    tls: &Path,
    addrs: &[SocketAddr],
) -> anyhow::Result<(Child, PathBuf, String)> {
    let mut text = std::fs::read_to_string(conf)
        .map_err(|e| anyhow::anyhow!("--front-door {}: {e}", conf.display()))?;
    for (name, addr) in [
        ("matchmaking:50051", addrs[0]),
        ("gomoku-referee:50052", addrs[1]),
        ("doudizhu-dealer:50053", addrs[2]),
        ("ledger:50054", addrs[3]),
    ] {
        text = text.replace(&format!("server {name};"), &format!("server {addr};"));
    }
    let listen = free_port()?;
    let scratch = std::env::temp_dir().join(format!(
        "gamehub-loadgen-front-door-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..10]
    ));
    std::fs::create_dir_all(&scratch)?;
    text = text
        .replace("/etc/gamehub/tls", &tls.to_string_lossy())
        .replace("listen 8443 ", &format!("listen {listen} "))
        .replace(
            "pid /tmp/nginx.pid;",
            &format!("pid {};", scratch.join("nginx.pid").display()),
        );
    let conf_path = scratch.join("nginx.conf");
    std::fs::write(&conf_path, text)?;
    let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or_else(|| anyhow::anyhow!("--front-door needs nginx (Debian: nginx-light)"))?;
    let child = Command::new(nginx)
        .arg("-c")
        .arg(&conf_path)
        .arg("-p")
        .arg(&scratch)
        .arg("-e")
        .arg(scratch.join("error.log"))
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()?;
    let url = format!("https://{listen}");
    let started = Instant::now();
    while tokio::net::TcpStream::connect(listen).await.is_err() {
        if started.elapsed() > Duration::from_secs(10) {
            anyhow::bail!("the front door did not listen on {listen}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok((child, scratch, url))
}

/// Stops the front door started by [`start_front_door`] and removes its directory.
fn stop_front_door(door: Option<(Child, PathBuf)>) {
    if let Some((mut child, scratch)) = door {
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let _ = child.wait();
        let _ = std::fs::remove_dir_all(scratch);
    }
}

fn stop_all(spawned: &mut [Spawned]) {
    for s in spawned.iter_mut() {
        let _ = Command::new("kill")
            .args(["-TERM", &s.child.id().to_string()])
            .status();
    }
    for s in spawned.iter_mut() {
        let _ = s.child.wait();
    }
}

/// Sum of `gamehub_settlements_total{result="ok"}` over the given /metrics URLs.
pub(super) async fn settlements_acknowledged(urls: &[String]) -> Option<f64> {
    if urls.is_empty() {
        return None;
    }
    let mut total = 0.0;
    for url in urls {
        let text = http_get(url).await?;
        for line in text.lines() {
            if line.starts_with("gamehub_settlements_total") && line.contains("result=\"ok\"") {
                total += line
                    .rsplit(' ')
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0);
            }
        }
    }
    Some(total)
}

/// The body of a plain `GET http://host:port/path` (the services' metrics endpoint).
async fn http_get(url: &str) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
    let mut stream =
        tokio::time::timeout(Duration::from_secs(3), tokio::net::TcpStream::connect(host))
            .await
            .ok()?
            .ok()?;
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .await
        .ok()?;
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(3), stream.read_to_end(&mut response))
        .await
        .ok()?
        .ok()?;
    let text = String::from_utf8_lossy(&response).into_owned();
    text.split_once("\r\n\r\n").map(|(_, body)| body.to_owned())
}
