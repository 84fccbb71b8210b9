//! PostgreSQL servers of a test's own: a primary made with `initdb` and streaming
//! replicas of it made with `pg_basebackup -R`, each in a directory of its own on a
//! local port, for tests that stop, pause or lag a server — never done to the shared
//! one. Needs the PostgreSQL server binaries (Debian's `postgresql` package); as root,
//! they run as the `postgres` user, as PostgreSQL requires.
//!
//! `GAMEHUB_TEST_PG_DIR_PREFIX` (default `/tmp/gamehub-test-pg-`) prefixes the data
//! directories; `GAMEHUB_TEST_PORT_BASE`, when set, is the first port tried (else any
//! free port). Dropping a server stops it (immediate mode) and removes its directory.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU16, Ordering};

use anyhow::{Context, bail};

/// One PostgreSQL server (cluster) of the test's own.
#[derive(Debug)]
pub struct PgCluster {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its data directory.
    pub dir: PathBuf,
    bin: PathBuf,
}

impl PgCluster {
    /// A new primary: `initdb` (trust authentication on 127.0.0.1, replication allowed),
    /// started. `name` goes into its directory's name.
    pub fn primary(name: &str) -> anyhow::Result<Self> {
        let bin = server_bin()?;
        let cluster = Self {
            port: free_port()?,
            dir: new_dir(name)?,
            bin,
        };
        cluster.run(
            "initdb",
            &[
                "-D",
                path_str(&cluster.dir)?,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
            ],
        )?;
        cluster.start()?;
        Ok(cluster)
    }

    /// A streaming replica of `self` (`pg_basebackup -R`: a standby that follows the
    /// primary as a hot standby, readable), started.
    pub fn replica(&self, name: &str) -> anyhow::Result<Self> {
        let replica = Self {
            port: free_port()?,
            dir: new_dir(name)?,
            bin: self.bin.clone(),
        };
        std::fs::remove_dir(&replica.dir)?; // pg_basebackup makes it
        let port = self.port.to_string();
        replica.run(
            "pg_basebackup",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "postgres",
                "-D",
                path_str(&replica.dir)?,
                "-R",
                "-X",
                "stream",
            ],
        )?;
        replica.start()?;
        Ok(replica)
    }

    /// Starts it (waits until it accepts connections).
    pub fn start(&self) -> anyhow::Result<()> {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -k {} -c fsync=off",
            self.port,
            path_str(&self.dir)?
        );
        let log = self.dir.join("server.log");
        self.run(
            "pg_ctl",
            &[
                "-D",
                path_str(&self.dir)?,
                "-o",
                &options,
                "-l",
                path_str(&log)?,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )
    }

    /// Stops it (fast mode: connections are ended, it shuts down cleanly).
    pub fn stop(&self) -> anyhow::Result<()> {
        self.run(
            "pg_ctl",
            &["-D", path_str(&self.dir)?, "-m", "fast", "-w", "stop"],
        )
    }

    /// A URL of database `database` on it, as the superuser `postgres`.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    fn run(&self, program: &str, args: &[&str]) -> anyhow::Result<()> {
        let path = self.bin.join(program);
        let mut command = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        let out = command
            .args(args)
            .output()
            .with_context(|| format!("running {}", path.display()))?;
        if !out.status.success() {
            bail!(
                "{program} {args:?} failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(())
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        if let Ok(dir) = path_str(&self.dir) {
            let _ = self.run("pg_ctl", &["-D", dir, "-m", "immediate", "-w", "stop"]);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The directory of the newest installed PostgreSQL server's binaries.
fn server_bin() -> anyhow::Result<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .context("PostgreSQL server binaries (/usr/lib/postgresql) are needed")?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .context("no PostgreSQL server with initdb under /usr/lib/postgresql")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

fn path_str(path: &Path) -> anyhow::Result<&str> {
    path.to_str().context("a non-UTF-8 path")
}

/// A new, empty directory (owned by `postgres` when running as root).
fn new_dir(name: &str) -> anyhow::Result<PathBuf> {
    let prefix = std::env::var("GAMEHUB_TEST_PG_DIR_PREFIX")
        .unwrap_or_else(|_| "/tmp/gamehub-test-pg-".into());
    let id = uuid::Uuid::new_v4().simple().to_string();
    let dir = PathBuf::from(format!("{prefix}{name}-{}", &id[..12]));
    std::fs::create_dir_all(&dir)?;
    if is_root() {
        let status = Command::new("chown")
            .args(["postgres:postgres", path_str(&dir)?])
            .status()?;
        if !status.success() {
            bail!("cannot give {} to the postgres user", dir.display());
        }
    }
    Ok(dir)
}

/// A port nothing listens on: from `GAMEHUB_TEST_PORT_BASE` upwards when set, else any.
fn free_port() -> anyhow::Result<u16> {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let base = std::env::var("GAMEHUB_TEST_PORT_BASE")
        .ok()
        .and_then(|b| b.parse::<u16>().ok());
    let Some(base) = base else {
        return Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port());
    };
    loop {
        let offset = NEXT.fetch_add(1, Ordering::Relaxed);
        if offset >= 100 {
            bail!("no free port in GAMEHUB_TEST_PORT_BASE's hundred");
        }
        let port = base + offset;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
}
