//! The bottom layer of configuration: reading variables ([`Env`]) with errors that name
//! them ([`ConfigError`]), values that never print ([`Secret`]), and which kind of
//! deployment this is ([`Environment`]). Every other module may use these; the composed
//! settings ([`super::CommonConfig`]) sit above.

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

/// A configuration value that was present but could not be used.
#[derive(Debug, thiserror::Error)]
#[error("configuration variable {name}={value:?} is invalid: {reason}")]
pub struct ConfigError {
    /// The environment variable.
    pub name: String,
    /// What it held.
    pub value: String,
    /// What was expected instead.
    pub reason: String,
}

/// A string that never prints: `Debug` and `Display` show `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Reads variables from the process environment, or from a map in tests.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// When set, variables come from here instead of the process environment.
    overrides: Option<HashMap<String, String>>,
}

impl Env {
    /// Reads the real process environment.
    pub fn process() -> Self {
        Self { overrides: None }
    }

    /// Reads only the given pairs (tests, embedded setups).
    pub fn from_pairs<I, K, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        Self {
            overrides: Some(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
        }
    }

    /// The raw value of a variable, if set and not empty.
    pub fn raw(&self, name: &str) -> Option<String> {
        let value = match &self.overrides {
            Some(map) => map.get(name).cloned(),
            None => std::env::var(name).ok(),
        };
        value.filter(|v| !v.trim().is_empty())
    }

    /// A string variable with a default.
    pub fn string(&self, name: &str, default: &str) -> String {
        self.raw(name).unwrap_or_else(|| default.to_owned())
    }

    /// A parsed variable with a default; `what` says what a valid value looks like.
    pub fn parse<T: FromStr>(&self, name: &str, default: T, what: &str) -> Result<T, ConfigError> {
        match self.raw(name) {
            None => Ok(default),
            Some(value) => value.trim().parse().map_err(|_| ConfigError {
                name: name.to_owned(),
                value,
                reason: format!("expected {what}"),
            }),
        }
    }

    /// A positive whole number (a size, a count): 0 is refused as well as anything that
    /// is not a number.
    pub fn positive(&self, name: &str, default: u64, what: &str) -> Result<u64, ConfigError> {
        match self.parse(name, default, what)? {
            0 => Err(ConfigError {
                name: name.to_owned(),
                value: "0".into(),
                reason: format!("expected {what} (1 or more)"),
            }),
            value => Ok(value),
        }
    }

    /// A duration given in milliseconds.
    pub fn millis(&self, name: &str, default: Duration) -> Result<Duration, ConfigError> {
        let ms = self.parse(
            name,
            u64::try_from(default.as_millis()).unwrap_or(u64::MAX),
            "a whole number of milliseconds",
        )?;
        Ok(Duration::from_millis(ms))
    }

    /// A boolean (`true/false`, `1/0`, `yes/no`).
    pub fn flag(&self, name: &str, default: bool) -> Result<bool, ConfigError> {
        match self.raw(name) {
            None => Ok(default),
            Some(value) => match value.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Ok(true),
                "0" | "false" | "no" | "off" => Ok(false),
                _ => Err(ConfigError {
                    name: name.to_owned(),
                    value,
                    reason: "expected true or false".to_owned(),
                }),
            },
        }
    }

    /// A socket address such as `0.0.0.0:50051`.
    pub fn addr(&self, name: &str, default: &str) -> Result<SocketAddr, ConfigError> {
        let value = self.string(name, default);
        value.parse().map_err(|_| ConfigError {
            name: name.to_owned(),
            value,
            reason: "expected host:port with a numeric IP, e.g. 0.0.0.0:50051".to_owned(),
        })
    }
}

/// Whether this deployment is a laptop/test setup or a real one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    /// Development keys allowed; `gamehub token` mints tokens.
    Development,
    /// Development keys refused.
    Production,
}
