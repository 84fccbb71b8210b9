//! What Redis did during a load, command by command: `INFO commandstats` read before and
//! after, and the difference divided by the moves made. Redis's own CPU per move (from
//! /proc) says how much Redis costs; this says which commands it goes to, so the next
//! lever on Redis is read off a run rather than guessed.
//!
//! Redis counts a script's inner commands twice over: the `evalsha` line holds the whole
//! call (its commands included), and each command the script ran has its own line too.
//! [`CommandCosts::render`] says so beside the table.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use gamehub_platform::RedisTarget;

/// Calls and microseconds of one command, as `INFO commandstats` counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct CommandCost {
    /// Calls.
    pub calls: u64,
    /// Microseconds Redis spent in them.
    pub usec: u64,
}

/// Every command's counters at one moment, by name (`evalsha`, `xadd`, …).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommandStats(pub BTreeMap<String, CommandCost>);

/// Lines longer than this are not commandstats lines (a guard, not a limit Redis has).
const MAX_LINE: usize = 512;

impl CommandStats {
    /// Reads `INFO commandstats` of the first node of `redis` (on a cluster, one master's
    /// share only: the figures then describe that node).
    pub async fn read(redis: &RedisTarget) -> anyhow::Result<CommandStats> {
        let client = redis::Client::open(redis.first_url())?;
        let mut conn = client.get_multiplexed_async_connection().await?;
        let info: String = redis::cmd("INFO")
            .arg("commandstats")
            .query_async(&mut conn)
            .await?;
        Ok(CommandStats::parse(&info))
    }

    /// Parses `INFO commandstats` text: lines such as
    /// `cmdstat_evalsha:calls=12,usec=345,usec_per_call=28.75,rejected_calls=0,failed_calls=0`.
    /// Lines it does not recognise are skipped.
    pub fn parse(info: &str) -> CommandStats {
        let mut stats = BTreeMap::new();
        for line in info.lines().filter(|l| l.len() <= MAX_LINE) {
            let Some((name, fields)) = line
                .trim()
                .strip_prefix("cmdstat_")
                .and_then(|l| l.split_once(':'))
            else {
                continue;
            };
            let mut cost = CommandCost::default();
            for field in fields.split(',') {
                match field.split_once('=') {
                    Some(("calls", n)) => cost.calls = n.parse().unwrap_or(0),
                    Some(("usec", n)) => cost.usec = n.parse().unwrap_or(0),
                    _ => {}
                }
            }
            stats.insert(name.to_owned(), cost);
        }
        CommandStats(stats)
    }

    /// What happened in the `seconds` between `self` (earlier) and `later`: commands
    /// with calls only.
    pub fn since(&self, later: &CommandStats, seconds: f64) -> CommandCosts {
        let commands = later
            .0
            .iter()
            .filter_map(|(name, after)| {
                let before = self.0.get(name).copied().unwrap_or_default();
                let cost = CommandCost {
                    calls: after.calls.saturating_sub(before.calls),
                    usec: after.usec.saturating_sub(before.usec),
                };
                (cost.calls > 0).then(|| (name.clone(), cost))
            })
            .collect();
        CommandCosts { commands, seconds }
    }
}

/// The commands run during a load, with what they cost.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct CommandCosts {
    /// By command name.
    pub commands: Vec<(String, CommandCost)>,
    /// Over how long (the wall time between the two reads).
    pub seconds: f64,
}

/// Commands a script runs: their time is inside the script's own line as well.
fn is_script(name: &str) -> bool {
    matches!(
        name,
        "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "fcall" | "fcall_ro"
    )
}

impl CommandCosts {
    fn unscripted_usec(&self) -> u64 {
        // Redis does not say who called a command: a command scripts also run (HMGET,
        // XRANGE) counts here whole, so this is an upper bound when scripts ran.
        self.commands
            .iter()
            .filter(|(name, _)| !is_script(name))
            .map(|(_, c)| c.usec)
            .sum()
    }

    /// The table for people: each command's calls and µs per move at `moves_per_second`
    /// (as CPU per move is figured: the rate over the same wall time), the busiest
    /// first, at most `rows` of them.
    pub fn render(&self, moves_per_second: f64, rows: usize) -> String {
        let mut out = String::new();
        if moves_per_second <= 0.0 || self.seconds <= 0.0 || self.commands.is_empty() {
            return out;
        }
        let per = |n: u64| n as f64 / self.seconds / moves_per_second;
        let mut sorted: Vec<&(String, CommandCost)> = self.commands.iter().collect();
        sorted.sort_by(|a, b| b.1.usec.cmp(&a.1.usec).then(a.0.cmp(&b.0)));
        let _ = writeln!(
            out,
            "\n  Redis commands (INFO commandstats)   calls per move   µs per move"
        );
        for (name, cost) in sorted.iter().take(rows) {
            let _ = writeln!(
                out,
                "  {name:<36} {:>10.2}       {:>8.2}",
                per(cost.calls),
                per(cost.usec)
            );
        }
        let scripts: u64 = self
            .commands
            .iter()
            .filter(|(name, _)| is_script(name))
            .map(|(_, c)| c.usec)
            .sum();
        let _ = writeln!(
            out,
            "  scripts whole (evalsha …)            {:>10}       {:>8.2}\n  \
             every command not a script            {:>10}       {:>8.2}   (also counted inside the scripts when they run it)",
            "",
            per(scripts),
            "",
            per(self.unscripted_usec())
        );
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const BEFORE: &str = "# Commandstats\r\n\
        cmdstat_evalsha:calls=10,usec=300,usec_per_call=30.00,rejected_calls=0,failed_calls=0\r\n\
        cmdstat_hset:calls=10,usec=20,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n";
    const AFTER: &str = "# Commandstats\r\n\
        cmdstat_evalsha:calls=110,usec=3300,usec_per_call=30.00,rejected_calls=0,failed_calls=0\r\n\
        cmdstat_hset:calls=110,usec=220,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n\
        cmdstat_xrange:calls=50,usec=250,usec_per_call=5.00,rejected_calls=0,failed_calls=0\r\n\
        cmdstat_ping:calls=3\r\n\
        not a stats line\r\n";

    #[test]
    fn counters_are_read_by_name_and_differenced() {
        let costs = CommandStats::parse(BEFORE).since(&CommandStats::parse(AFTER), 2.0);
        let find = |n: &str| costs.commands.iter().find(|(name, _)| name == n).unwrap().1;
        assert_eq!(
            find("evalsha"),
            CommandCost {
                calls: 100,
                usec: 3000
            }
        );
        assert_eq!(
            find("hset"),
            CommandCost {
                calls: 100,
                usec: 200
            }
        );
        assert_eq!(
            find("xrange"),
            CommandCost {
                calls: 50,
                usec: 250
            }
        );
        assert_eq!(find("ping"), CommandCost { calls: 3, usec: 0 });
    }

    #[test]
    fn the_table_gives_calls_and_microseconds_per_move_busiest_first() {
        // 100 moves in 2 s.
        let costs = CommandStats::parse(BEFORE).since(&CommandStats::parse(AFTER), 2.0);
        let table = costs.render(50.0, 2);
        let lines: Vec<&str> = table.lines().filter(|l| !l.trim().is_empty()).collect();
        assert!(lines[1].trim_start().starts_with("evalsha"), "{table}");
        assert!(
            lines[1].contains("1.00") && lines[1].contains("30.00"),
            "{table}"
        );
        assert!(lines[2].trim_start().starts_with("xrange"), "{table}");
        assert!(
            !table.contains("hset "),
            "only the two busiest rows: {table}"
        );
        assert!(table.contains("scripts whole"), "{table}");
        assert_eq!(costs.render(0.0, 5), "");
    }
}
