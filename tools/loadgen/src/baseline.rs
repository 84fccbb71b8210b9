//! What the load generators measure beside their own figures, so those can be read
//! against what the machine itself does: `redis-benchmark`'s EVAL throughput on the same
//! Redis ([`redis_eval`]), `pgbench`'s TPC-B on the same PostgreSQL ([`Pgbench`]), and the
//! latency quantiles every report prints ([`quantile`]).
//!
//! The tools are run as they are installed (`redis-benchmark`, `pgbench`, `psql` on
//! `PATH`). A tool that is missing or fails is an error here; whether the baseline is then
//! just absent or the run fails is the caller's choice.

use std::time::Duration;

/// The script redis-benchmark evaluates: the cheapest script step, the unit every
/// service's Redis cost is compared with (`EVAL` of one `INCR`).
const EVAL_SCRIPT: &str = include_str!("baseline.lua").trim_ascii_end();

use anyhow::Context;
use gamehub_platform::RedisTarget;
use gamehub_testkit::postgres::scratch_database_url;

/// `redis-benchmark` requests when a load generator is not told otherwise: enough for a
/// steady figure (a few seconds at the usual 50,000–90,000/s).
pub const REDIS_EVAL_REQUESTS: u64 = 200_000;

/// The key the benchmark's script increments; deleted afterwards.
const REDIS_BENCHMARK_KEY: &str = "loadgen:redis-benchmark";
/// The counter on a cluster: one per master (redis-benchmark fills in `{tag}`), left
/// behind (three small keys) since their names depend on the cluster's slots.
const REDIS_BENCHMARK_CLUSTER_KEY: &str = "loadgen:redis-benchmark:{tag}";

/// pgbench worker threads (`-j`).
const PGBENCH_THREADS: u32 = 2;

/// The sample at quantile `q` (0.5 is the median, 0.99 the p99, 1.0 the slowest) of
/// samples sorted in ascending order: the nearest rank, index `round((n − 1) · q)`.
/// None when there are no samples.
pub fn quantile<T: Copy + PartialOrd>(sorted: &[T], q: f64) -> Option<T> {
    debug_assert!((0.0..=1.0).contains(&q), "quantile {q} is not in 0..=1");
    debug_assert!(sorted.is_sorted(), "quantile of unsorted samples");
    let last = sorted.len().checked_sub(1)?;
    let index = (last as f64 * q).round() as usize;
    Some(sorted[index.min(last)])
}

/// [`quantile`] of sorted microsecond samples, in milliseconds; 0 when there are none.
pub fn quantile_ms(sorted_us: &[u32], q: f64) -> f64 {
    quantile(sorted_us, q).map_or(0.0, |us| f64::from(us) / 1000.0)
}

/// What `redis-benchmark` measured.
#[derive(Debug, Clone, PartialEq)]
pub struct RedisEval {
    /// EVAL requests answered per second.
    pub per_second: f64,
    /// The command as it ran, printed beside the figure so anyone can repeat it.
    pub command: String,
}

/// Runs `redis-benchmark` against the Redis at `redis` (`redis://[user:pw@]host[:port][/db]`):
/// `requests` EVALs of a one-key script (`INCR`) from 50 clients without pipelining,
/// i.e. one script and one round trip per call, as a table step is. Only the host and
/// port are passed on, not the password or database number. On a cluster it runs in
/// `--cluster` mode from the first seed node: the key carries `{tag}`, which
/// redis-benchmark replaces per master, so the figure is every master's EVAL/s together.
pub async fn redis_eval(redis: &RedisTarget, requests: u64) -> anyhow::Result<RedisEval> {
    let redis_url = redis.first_url();
    let (host, port) = redis_host_port(redis_url)?;
    let requests_count = requests;
    let requests = requests.to_string();
    let mut args = vec!["-h", host, "-p", port];
    if redis.is_cluster() {
        args.push("--cluster");
    }
    args.extend([
        "-n",
        &requests,
        "-c",
        "50",
        "-P",
        "1",
        "-q",
        "eval",
        EVAL_SCRIPT,
        "1",
        if redis.is_cluster() {
            REDIS_BENCHMARK_CLUSTER_KEY
        } else {
            REDIS_BENCHMARK_KEY
        },
    ]);
    // An unreachable Redis makes redis-benchmark wait for ever; 200,000 requests take
    // seconds on a working one.
    let limit = Duration::from_secs(60) + Duration::from_millis(requests_count / 100);
    let output = run_tool("redis-benchmark", &args, limit).await;
    if !redis.is_cluster() {
        delete_benchmark_key(redis_url).await;
    }
    let output = output?;
    let per_second = parse_redis_benchmark(&output)
        .with_context(|| format!("unexpected redis-benchmark output: {output}"))?;
    Ok(RedisEval {
        per_second,
        command: command_line("redis-benchmark", &args),
    })
}

/// Host and port of a `redis://` URL (port 6379 when it has none).
fn redis_host_port(redis_url: &str) -> anyhow::Result<(&str, &str)> {
    let rest = redis_url
        .strip_prefix("redis://")
        .context("only redis:// URLs can be benchmarked")?;
    let host_port = rest.rsplit('@').next().unwrap_or(rest);
    let host_port = host_port.split('/').next().unwrap_or(host_port);
    Ok(host_port.rsplit_once(':').unwrap_or((host_port, "6379")))
}

/// The requests per second of `redis-benchmark -q`'s report. Its last line reads
/// `eval …: 86956.52 requests per second, p50=0.487 msec`, after progress lines that
/// end in carriage returns.
fn parse_redis_benchmark(output: &str) -> Option<f64> {
    let line = output
        .split(['\r', '\n'])
        .rfind(|line| line.contains("requests per second"))?;
    line.split("requests per second")
        .next()?
        .split_whitespace()
        .next_back()?
        .parse()
        .ok()
}

/// Removes the counter the benchmark left behind; a failure only leaves one key.
async fn delete_benchmark_key(redis_url: &str) {
    if let Ok(client) = redis::Client::open(redis_url)
        && let Ok(mut conn) = client.get_multiplexed_async_connection().await
    {
        let _: Result<(), _> = redis::cmd("DEL")
            .arg(REDIS_BENCHMARK_KEY)
            .query_async(&mut conn)
            .await;
    }
}

/// A pgbench TPC-B run (`pgbench -i -s SCALE`, then `pgbench -c CLIENTS -j 2 -T SECONDS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pgbench {
    /// The scale factor: branches, each with 100,000 accounts. Every transaction updates
    /// one branch row, so with fewer branches than clients the clients queue on them.
    pub scale: u32,
    /// Client connections.
    pub clients: u32,
    /// How long the measured run lasts, in seconds.
    pub seconds: u32,
}

/// What pgbench measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PgbenchReport {
    /// Transactions per second, without the initial connection time.
    pub tps: f64,
    /// The average transaction latency, when pgbench printed it.
    pub latency_average: Option<Duration>,
}

impl Pgbench {
    /// Runs on a scratch database created on the server of `database_url` (a
    /// `postgres://` URL of any database there, or of the server alone) and dropped
    /// afterwards, whatever happened.
    pub async fn run(&self, database_url: &str) -> anyhow::Result<PgbenchReport> {
        let name = format!(
            "gamehub_pgbench_{}",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        let maintenance = scratch_database_url(database_url, "postgres")?;
        let scratch = scratch_database_url(database_url, &name)?;
        run_tool(
            "psql",
            &[&maintenance, "-qc", &format!("CREATE DATABASE {name}")],
            PSQL_LIMIT,
        )
        .await?;
        let result = self.bench(&scratch).await;
        let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
        if let Err(e) = run_tool("psql", &[&maintenance, "-qc", &drop], PSQL_LIMIT).await {
            tracing::warn!(error = %e, database = %name, "could not drop the pgbench database");
        }
        result
    }

    async fn bench(&self, url: &str) -> anyhow::Result<PgbenchReport> {
        let init_limit = Duration::from_secs(120 + 30 * u64::from(self.scale));
        run_tool(
            "pgbench",
            &["-i", "-q", "-s", &self.scale.to_string(), url],
            init_limit,
        )
        .await
        .context("pgbench -i")?;
        let output = run_tool(
            "pgbench",
            &[
                "-c",
                &self.clients.to_string(),
                "-j",
                &PGBENCH_THREADS.to_string(),
                "-T",
                &self.seconds.to_string(),
                url,
            ],
            Duration::from_secs(u64::from(self.seconds) + 120),
        )
        .await?;
        parse_pgbench(&output).with_context(|| format!("no tps in pgbench output:\n{output}"))
    }
}

/// The tps and average latency of pgbench's report; None without a tps. Before
/// PostgreSQL 14 it printed two tps lines, including then excluding connection time: the
/// last one is taken, as newer versions print only that one.
fn parse_pgbench(output: &str) -> Option<PgbenchReport> {
    let tps = output
        .lines()
        .filter_map(|line| line.trim().strip_prefix("tps = "))
        .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
        .next_back()?;
    let latency_average = output
        .lines()
        .filter_map(|line| line.trim().strip_prefix("latency average = "))
        .filter_map(|rest| rest.strip_suffix(" ms")?.trim().parse::<f64>().ok())
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .next_back();
    Some(PgbenchReport {
        tps,
        latency_average,
    })
}

/// How long a psql statement of the pgbench baseline may take.
const PSQL_LIMIT: Duration = Duration::from_secs(60);

/// Runs `program` with `args` to its end and returns what it printed; an error when it
/// cannot start (not installed), runs longer than `limit` (it is then killed) or exits
/// with a failure. The error does not repeat the arguments: a database URL among them
/// may hold a password.
async fn run_tool(program: &str, args: &[&str], limit: Duration) -> anyhow::Result<String> {
    let run = tokio::process::Command::new(program)
        .args(args)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(limit, run)
        .await
        .map_err(|_| anyhow::anyhow!("{program} did not finish within {} s", limit.as_secs()))?
        .with_context(|| format!("cannot run {program} (is it installed?)"))?;
    anyhow::ensure!(
        output.status.success(),
        "{program} failed: {}",
        String::from_utf8_lossy(&output.stderr).trim()
    );
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `program args…` as one would type it, arguments with spaces in double quotes.
fn command_line(program: &str, args: &[&str]) -> String {
    let mut line = program.to_owned();
    for arg in args {
        line.push(' ');
        if arg.contains(' ') {
            line.push_str(&format!("\"{arg}\""));
        } else {
            line.push_str(arg);
        }
    }
    line
}

/// `gamehub-loadgen baseline` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// EVAL requests redis-benchmark makes (0 skips it).
    #[arg(long, default_value_t = REDIS_EVAL_REQUESTS)]
    pub redis_requests: u64,
    /// pgbench scale (branches of 100,000 accounts).
    #[arg(long, default_value_t = 10)]
    pub pgbench_scale: u32,
    /// pgbench clients (-c); threads (-j) are 2.
    #[arg(long, default_value_t = 32)]
    pub pgbench_clients: u32,
    /// How long pgbench runs, in seconds (0 skips it).
    #[arg(long, default_value_t = 20)]
    pub pgbench_seconds: u32,
}

/// Measures the baselines of `config`'s Redis and PostgreSQL server; the report, one
/// line each, with the command to repeat.
pub async fn run(
    args: &Args,
    config: &gamehub_platform::config::CommonConfig,
) -> anyhow::Result<String> {
    let mut report = String::new();
    if args.redis_requests > 0 {
        let eval = redis_eval(&config.redis, args.redis_requests).await?;
        report.push_str(&format!(
            "redis-benchmark EVAL/s {:.0}  ({})\n",
            eval.per_second, eval.command
        ));
    }
    if args.pgbench_seconds > 0 {
        let pgbench = Pgbench {
            scale: args.pgbench_scale,
            clients: args.pgbench_clients,
            seconds: args.pgbench_seconds,
        };
        let measured = pgbench.run(config.database_url.expose()).await?;
        report.push_str(&format!(
            "pgbench TPC-B tps {:.0}  (scale {}, {} clients, {} s; latency average {})\n",
            measured.tps,
            pgbench.scale,
            pgbench.clients,
            pgbench.seconds,
            measured
                .latency_average
                .map_or("not printed".to_owned(), |l| format!(
                    "{:.2} ms",
                    l.as_secs_f64() * 1000.0
                ))
        ));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `redis-benchmark -h 127.0.0.1 -p 6379 -n 2000 -c 50 -P 1 -q eval
    /// "<baseline.lua>" 1 loadgen:redis-benchmark` (redis-benchmark
    /// 7.0.15), byte for byte: a progress line, its blanking, then the result.
    fn redis_benchmark_quiet() -> String {
        format!(
            " \reval {EVAL_SCRIPT} 1 loadgen:redis-benchmark: rps=0.0 (overall: -nan) avg_msec=-nan (overall: -nan)\r                                                                                                                        \reval {EVAL_SCRIPT} 1 loadgen:redis-benchmark: 86956.52 requests per second, p50=0.487 msec\n\n"
        )
    }

    /// `pgbench -c 4 -j 2 -T 1` (pgbench 15.20), its standard output.
    const PGBENCH_15: &str = "pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 1
query mode: simple
number of clients: 4
number of threads: 2
maximum number of tries: 1
duration: 1 s
number of transactions actually processed: 359
number of failed transactions: 0 (0.000%)
latency average = 11.167 ms
initial connection time = 14.212 ms
tps = 358.199424 (without initial connection time)
";

    /// The end of a report of pgbench 13 and older: tps with, then without, connecting.
    const PGBENCH_13_TAIL: &str = "latency average = 7.490 ms
tps = 4264.321503 (including connections establishing)
tps = 4270.194820 (excluding connections establishing)
";

    #[test]
    fn redis_benchmark_rate_is_read_from_the_last_quiet_line() {
        assert_eq!(
            parse_redis_benchmark(&redis_benchmark_quiet()),
            Some(86956.52)
        );
    }

    #[test]
    fn redis_benchmark_progress_alone_has_no_rate() {
        let output = redis_benchmark_quiet();
        let progress = output.split_once("86956").map_or("", |(before, _)| before);
        assert_eq!(parse_redis_benchmark(progress), None);
        assert_eq!(parse_redis_benchmark(""), None);
    }

    #[test]
    fn redis_urls_split_into_host_and_port() {
        assert_eq!(
            redis_host_port("redis://127.0.0.1:6379").unwrap(),
            ("127.0.0.1", "6379")
        );
        assert_eq!(
            redis_host_port("redis://:pw@redis:6380/0").unwrap(),
            ("redis", "6380")
        );
        assert_eq!(
            redis_host_port("redis://localhost").unwrap(),
            ("localhost", "6379")
        );
        assert!(redis_host_port("rediss://redis:6380").is_err());
    }

    #[test]
    fn the_printed_redis_command_can_be_pasted_into_a_shell() {
        assert_eq!(
            command_line("redis-benchmark", &["-q", "eval", EVAL_SCRIPT, "1", "k"]),
            format!("redis-benchmark -q eval \"{EVAL_SCRIPT}\" 1 k")
        );
    }

    #[test]
    fn pgbench_tps_is_read_from_its_report() {
        assert_eq!(
            parse_pgbench(PGBENCH_15),
            Some(PgbenchReport {
                tps: 358.199424,
                latency_average: Some(Duration::from_secs_f64(0.011167)),
            })
        );
        assert_eq!(parse_pgbench("starting vacuum...end.\n"), None);
    }

    #[test]
    fn older_pgbench_tps_is_the_one_without_connecting() {
        assert_eq!(
            parse_pgbench(PGBENCH_13_TAIL).map(|r| r.tps),
            Some(4270.194820)
        );
    }

    #[test]
    fn quantiles_are_the_nearest_rank() {
        let sorted: Vec<u32> = (1..=100).collect();
        assert_eq!(quantile(&sorted, 0.0), Some(1));
        assert_eq!(quantile(&sorted, 0.5), Some(51));
        assert_eq!(quantile(&sorted, 0.99), Some(99));
        assert_eq!(quantile(&sorted, 1.0), Some(100));
        assert_eq!(quantile::<u32>(&[], 0.5), None);
        assert_eq!(
            quantile(&[Duration::from_millis(3)], 0.99),
            Some(Duration::from_millis(3))
        );
    }

    #[test]
    fn quantiles_of_microseconds_are_in_milliseconds() {
        assert_eq!(quantile_ms(&[250, 1_500, 40_000], 0.5), 1.5);
        assert_eq!(quantile_ms(&[], 0.99), 0.0);
    }

    #[tokio::test]
    async fn a_tool_that_hangs_is_killed_at_its_limit() {
        let error = run_tool("sleep", &["30"], Duration::from_millis(200))
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("did not finish within"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_missing_tool_says_so() {
        let error = run_tool("gamehub-no-such-tool", &[], Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(error.to_string().contains("is it installed"), "{error}");
    }
}
