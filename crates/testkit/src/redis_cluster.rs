//! A Redis Cluster of a test's own, for what cannot be done to the shared one: killing
//! a master (SIGKILL, like a crashed host), watching its replica take over, and bringing
//! the dead node back. Six `redis-server --cluster-enabled yes` children on the ports
//! `base..base+5` the test chooses (from its engineer's range, never the shared
//! cluster's 7000–7005), each over a data directory `/tmp/<tag>-<base>/<port>` with an
//! append-only file (`appendfsync everysec`, as a deployment runs it) and a short
//! `cluster-node-timeout` (1 s), so a failover takes a few seconds. Made with
//! `redis-cli --cluster create … --cluster-replicas 1`: three masters, one replica each.
//!
//! What it reads it reads with `redis-cli` (`CLUSTER INFO`, `CLUSTER NODES`); the slot
//! of a key is [`gamehub_platform::redis_conn::slot_of`], the services' own. Every
//! child is killed by its own process id, and the directory removed, when the cluster
//! is dropped (also when the test panics).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How many nodes: three masters with one replica each.
const NODES: u16 = 6;

/// The node timeout: a master unreachable this long is failed over.
const NODE_TIMEOUT_MS: &str = "1000";

/// How long the cluster may take to form, or to fail over.
const BOUND: Duration = Duration::from_secs(60);

/// Six `redis-server` children forming a cluster.
pub struct OwnCluster {
    base: u16,
    dir: PathBuf,
    /// The child of each node, by `port - base`; `None` once killed.
    children: Vec<Option<Child>>,
}

/// One line of `CLUSTER NODES`.
#[derive(Debug, Clone)]
struct Node {
    id: String,
    port: u16,
    master: bool,
    failed: bool,
    /// For a replica: its master's id.
    master_id: Option<String>,
    /// For a master: the slot ranges it serves.
    slots: Vec<(u16, u16)>,
    connected: bool,
}

fn parse_nodes(text: &str) -> Vec<Node> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 8 {
                return None;
            }
            let port = fields[1]
                .split('@')
                .next()?
                .rsplit(':')
                .next()?
                .parse()
                .ok()?;
            let flags: Vec<&str> = fields[2].split(',').collect();
            let slots = fields[8..]
                .iter()
                .filter(|s| !s.starts_with('['))
                .filter_map(|range| match range.split_once('-') {
                    Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
                    None => range.parse().ok().map(|s| (s, s)),
                })
                .collect();
            Some(Node {
                id: fields[0].to_owned(),
                port,
                master: flags.contains(&"master"),
                failed: flags.iter().any(|f| *f == "fail" || *f == "fail?"),
                master_id: (fields[3] != "-").then(|| fields[3].to_owned()),
                slots,
                connected: fields[7] == "connected",
            })
        })
        .collect()
}

impl OwnCluster {
    /// Starts six nodes on `base..base+5` over a fresh `/tmp/<tag>-<base>`, creates the
    /// cluster, and returns once every node says `cluster_state:ok` and every master
    /// has a connected replica.
    pub fn start(tag: &str, base: u16) -> OwnCluster {
        let dir = PathBuf::from(format!("/tmp/{tag}-{base}"));
        let _ = std::fs::remove_dir_all(&dir);
        let mut cluster = OwnCluster {
            base,
            dir,
            children: (0..NODES).map(|_| None).collect(),
        };
        for port in cluster.ports() {
            assert!(
                cluster.cli(port, &["PING"]).is_empty(),
                "something already answers on port {port} (a leftover of a killed run? \
                 `redis-cli -p {port} shutdown nosave` stops it)"
            );
        }
        for port in cluster.ports() {
            std::fs::create_dir_all(cluster.node_dir(port)).unwrap();
            cluster.spawn(port);
        }
        for port in cluster.ports() {
            cluster.wait_for(&format!("node {port} answers PING"), || {
                cluster.cli(port, &["PING"]) == "PONG"
            });
        }
        let nodes: Vec<String> = cluster
            .ports()
            .map(|port| format!("127.0.0.1:{port}"))
            .collect();
        let output = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&nodes)
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .output()
            .unwrap_or_else(|e| panic!("running redis-cli --cluster create: {e}"));
        assert!(
            output.status.success(),
            "redis-cli --cluster create failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        cluster.wait_ready();
        cluster
    }

    /// Like [`OwnCluster::start`] on the first of `bases` whose six ports and their
    /// cluster bus ports (+10000) are all free: two runs of a test at once (a developer's
    /// and a suite's) then get clusters of their own instead of breaking each other's.
    pub fn start_free(tag: &str, bases: impl IntoIterator<Item = u16>) -> OwnCluster {
        let free = |port: u16| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok();
        let base = bases
            .into_iter()
            .find(|&base| (base..base + NODES).all(|p| free(p) && free(p + 10_000)))
            .unwrap_or_else(|| panic!("no free ports for a Redis Cluster"));
        OwnCluster::start(tag, base)
    }

    /// The ports of the six nodes.
    pub fn ports(&self) -> std::ops::Range<u16> {
        self.base..self.base + NODES
    }

    /// The seed nodes for `REDIS_URL` (with `GAMEHUB_REDIS_CLUSTER=true`): all six, so a
    /// service starting while one is down still finds the cluster.
    pub fn urls(&self) -> String {
        self.ports()
            .map(|port| format!("redis://127.0.0.1:{port}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    fn node_dir(&self, port: u16) -> PathBuf {
        self.dir.join(port.to_string())
    }

    fn index(&self, port: u16) -> usize {
        assert!(
            self.ports().any(|p| p == port),
            "port {port} is not a node of this cluster"
        );
        usize::from(port - self.base)
    }

    fn spawn(&mut self, port: u16) {
        let dir = self.node_dir(port);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("redis.log"))
            .unwrap();
        let port_text = port.to_string();
        let dir_text = dir.to_string_lossy().into_owned();
        let conf = dir.join("nodes.conf").to_string_lossy().into_owned();
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port_text,
                "--bind",
                "127.0.0.1",
                "--dir",
                &dir_text,
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                &conf,
                "--cluster-node-timeout",
                NODE_TIMEOUT_MS,
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--daemonize",
                "no",
            ])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("starting redis-server (is it installed?): {e}"));
        let index = self.index(port);
        self.children[index] = Some(child);
    }

    /// Whether the node on `port` runs (was not killed, or was restarted).
    pub fn is_up(&self, port: u16) -> bool {
        self.children[self.index(port)].is_some()
    }

    fn up_ports(&self) -> Vec<u16> {
        self.ports().filter(|&port| self.is_up(port)).collect()
    }

    /// Runs a command with `redis-cli` against the node on `port` and returns its
    /// output, trimmed (an error reply comes back as its text).
    pub fn cli(&self, port: u16, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-p", &port.to_string()])
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("running redis-cli: {e}"));
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    fn nodes(&self, port: u16) -> Vec<Node> {
        parse_nodes(&self.cli(port, &["CLUSTER", "NODES"]))
    }

    fn state_ok(&self, port: u16) -> bool {
        self.cli(port, &["CLUSTER", "INFO"])
            .lines()
            .any(|line| line.trim() == "cluster_state:ok")
    }

    /// The port of the master serving `slot`, as the node on `asked` sees it (a master
    /// not flagged failing), if any.
    fn master_in(&self, asked: u16, slot: u16) -> Option<u16> {
        self.nodes(asked)
            .into_iter()
            .find(|n| {
                n.master && !n.failed && n.slots.iter().any(|&(a, b)| (a..=b).contains(&slot))
            })
            .map(|n| n.port)
    }

    /// The port of the master serving `key`'s slot (as the first running node sees it).
    pub fn master_of(&self, key: &str) -> u16 {
        self.master_of_slot(gamehub_platform::redis_conn::slot_of(key))
    }

    /// The port of the master serving `slot` (as the first running node sees it).
    pub fn master_of_slot(&self, slot: u16) -> u16 {
        let asked = *self.up_ports().first().expect("no node runs");
        self.master_in(asked, slot)
            .unwrap_or_else(|| panic!("no master serves slot {slot} (asked node {asked})"))
    }

    /// Kills the node on `port` at once (SIGKILL, by its process id: nothing flushed,
    /// like a crash) and waits for it to be gone.
    pub fn kill9(&mut self, port: u16) {
        let index = self.index(port);
        if let Some(mut child) = self.children[index].take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the node on `port` again over its directory (its `nodes.conf` and AOF): a
    /// master that was failed over comes back as a replica of the node that took over.
    /// Returns once it answers PING; see [`OwnCluster::wait_ready`].
    pub fn restart(&mut self, port: u16) {
        self.kill9(port);
        self.spawn(port);
        self.wait_for(&format!("node {port} answers PING after a restart"), || {
            self.cli(port, &["PING"]) == "PONG"
        });
    }

    /// Waits until a running node other than a killed one is master of `slot` in the
    /// view of every running node, and every running node says `cluster_state:ok`;
    /// returns the new master's port.
    pub fn wait_promoted(&self, slot: u16) -> u16 {
        let mut promoted = 0;
        self.wait_for(&format!("a running node took over slot {slot}"), || {
            let up = self.up_ports();
            let masters: Vec<Option<u16>> = up
                .iter()
                .map(|&asked| self.master_in(asked, slot))
                .collect();
            match masters.first() {
                Some(&Some(port))
                    if self.is_up(port)
                        && masters.iter().all(|m| *m == Some(port))
                        && up.iter().all(|&p| self.state_ok(p)) =>
                {
                    promoted = port;
                    true
                }
                _ => false,
            }
        });
        promoted
    }

    /// Waits until every running node says `cluster_state:ok` and every master serving
    /// slots has a connected replica that is running (after [`OwnCluster::restart`], the
    /// restarted node has rejoined and synced).
    pub fn wait_ready(&self) {
        self.wait_for("the cluster is ok with a replica for every master", || {
            let up = self.up_ports();
            if !up.iter().all(|&p| self.state_ok(p)) {
                return false;
            }
            let nodes = self.nodes(up[0]);
            let masters: Vec<&Node> = nodes
                .iter()
                .filter(|n| n.master && !n.failed && !n.slots.is_empty())
                .collect();
            masters.len() == 3
                && masters.iter().all(|m| {
                    nodes.iter().any(|r| {
                        r.master_id.as_deref() == Some(m.id.as_str())
                            && !r.failed
                            && r.connected
                            && self.is_up(r.port)
                            && self.replica_synced(r.port)
                    })
                })
        });
    }

    /// Whether the replica on `port` has its master's link up and is not syncing.
    fn replica_synced(&self, port: u16) -> bool {
        let info = self.cli(port, &["INFO", "replication"]);
        let field = |name: &str| {
            info.lines()
                .find_map(|l| l.trim().strip_prefix(name)?.strip_prefix(':'))
                .map(str::to_owned)
        };
        field("master_link_status").as_deref() == Some("up")
            && field("master_sync_in_progress").as_deref() == Some("0")
    }

    fn wait_for(&self, what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            if start.elapsed() > BOUND {
                let views: String = self
                    .up_ports()
                    .into_iter()
                    .map(|port| {
                        format!(
                            "node {port}:\n{}\n{}\n",
                            self.cli(port, &["CLUSTER", "INFO"])
                                .lines()
                                .filter(|l| l.starts_with("cluster_state")
                                    || l.starts_with("cluster_size")
                                    || l.starts_with("cluster_known"))
                                .collect::<Vec<_>>()
                                .join(" "),
                            self.cli(port, &["CLUSTER", "NODES"])
                        )
                    })
                    .collect();
                panic!(
                    "redis cluster on {}..{}: {what}: not reached within {BOUND:?}\n{views}",
                    self.base,
                    self.base + NODES - 1
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        for child in self.children.iter_mut().filter_map(Option::take) {
            let mut child = child;
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
