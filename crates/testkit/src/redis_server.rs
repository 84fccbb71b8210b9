//! A `redis-server` of a test's own, for what cannot be done to the shared one: killing
//! it, cutting its append-only file back, restarting it and watching it load. It runs
//! on a port the test chooses (from its engineer's range) over a data directory under
//! `/tmp`, and is killed (by its own process id) and its directory removed when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` child process with an append-only file.
pub struct OwnRedis {
    port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

impl OwnRedis {
    /// Starts `redis-server` on `port` over a fresh directory `/tmp/<tag>-<port>`, with
    /// `appendonly yes`, no RDB snapshots, the DEBUG command enabled, and `extra`
    /// arguments (`["--appendfsync", "always"]`, …); returns once it answers PING.
    pub fn start(tag: &str, port: u16, extra: &[&str]) -> OwnRedis {
        let dir = PathBuf::from(format!("/tmp/{tag}-{port}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut redis = OwnRedis {
            port,
            dir,
            child: None,
        };
        redis.spawn(extra);
        redis.wait_until(Duration::from_secs(30), |reply| reply == "PONG");
        redis
    }

    /// The URL to give services.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The data directory (its `appendonlydir/` holds the AOF).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn spawn(&mut self, extra: &[&str]) {
        let port = self.port.to_string();
        let dir = self.dir.to_string_lossy().into_owned();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("redis.log"))
            .unwrap();
        let mut args = vec![
            "--port",
            &port,
            "--bind",
            "127.0.0.1",
            "--dir",
            &dir,
            "--save",
            "",
            "--appendonly",
            "yes",
            "--enable-debug-command",
            "yes",
            "--daemonize",
            "no",
        ];
        args.extend_from_slice(extra);
        let child = Command::new("redis-server")
            .args(&args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("starting redis-server (is it installed?): {e}"));
        self.child = Some(child);
    }

    /// Runs a command with `redis-cli` and returns its output, trimmed (an error reply
    /// comes back as its text, e.g. `LOADING Redis is loading …`).
    pub fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("running redis-cli: {e}"));
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// One field of `INFO`, e.g. `loading` or `aof_rewrite_in_progress`.
    pub fn info(&self, field: &str) -> Option<String> {
        let text = self.cli(&["INFO"]);
        text.lines().find_map(|line| {
            line.trim()
                .strip_prefix(field)
                .and_then(|rest| rest.strip_prefix(':'))
                .map(str::to_owned)
        })
    }

    /// Polls `PING` until `done` accepts its reply, panicking after `bound`.
    pub fn wait_until(&self, bound: Duration, done: impl Fn(&str) -> bool) {
        let start = Instant::now();
        loop {
            let reply = self.cli(&["PING"]);
            if done(&reply) {
                return;
            }
            assert!(
                start.elapsed() < bound,
                "redis on port {} did not get there in {bound:?} (last reply {reply:?})",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Rewrites the AOF (a fresh base file) and waits until the rewrite is done.
    pub fn rewrite_aof(&self) {
        self.cli(&["BGREWRITEAOF"]);
        let start = Instant::now();
        while self.info("aof_rewrite_in_progress").as_deref() != Some("0")
            || self.info("aof_rewrite_scheduled").as_deref() != Some("0")
        {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "AOF rewrite hangs"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server at once (SIGKILL: nothing flushed, like a crash) and waits for
    /// it to be gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again over the same directory with `extra` arguments; returns
    /// as soon as the process runs (it may still be loading its data).
    pub fn restart(&mut self, extra: &[&str]) {
        self.kill();
        self.spawn(extra);
        self.wait_until(Duration::from_secs(30), |reply| {
            reply == "PONG" || reply.starts_with("LOADING")
        });
    }

    /// The incremental AOF file the server appends to (multi-part AOF, Redis 7).
    pub fn incr_aof(&self) -> PathBuf {
        let manifest =
            std::fs::read_to_string(self.dir.join("appendonlydir/appendonly.aof.manifest"))
                .unwrap();
        let name = manifest
            .lines()
            .rev()
            .filter(|line| line.contains("type i"))
            .find_map(|line| line.split_whitespace().nth(1))
            .unwrap_or_else(|| panic!("no incremental AOF in the manifest:\n{manifest}"));
        self.dir.join("appendonlydir").join(name)
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
