//! How every gamehub service binary runs, the same way: one command line — `serve` (the
//! default) and `health` (the container healthcheck), plus any command of the binary's
//! own — configuration from the environment, telemetry and metrics, then serving until
//! SIGTERM or Ctrl-C (graceful shutdown) or until the service stops by itself.
//!
//! A service crate implements [`Service`] on its configuration (in one line, with
//! [`impl_service!`](crate::impl_service)); its `main` is one call:
//!
//! ```text
//! fn main() -> std::process::ExitCode {
//!     gamehub_platform::runner::service_main::<LedgerConfig>("gamehub-ledger", "…")
//! }
//! ```

use std::future::Future;
use std::net::SocketAddr;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::{CommonConfig, ConfigError, Env};
use crate::server::{Shutdown, Started, termination_signal};
use crate::telemetry;

/// A service as its binary runs it; implemented by the service's configuration.
pub trait Service: Sized {
    /// Reads the configuration; an unusable value names its variable.
    fn from_env(env: &Env) -> Result<Self, ConfigError>;
    /// The settings every service shares (telemetry, metrics, limits).
    fn common(&self) -> &CommonConfig;
    /// Where the gRPC API listens (the `health` command asks there by default).
    fn listen(&self) -> SocketAddr;
    /// Starts the service in the background; it stops when `shutdown` is triggered.
    fn start(self, shutdown: Shutdown) -> impl Future<Output = anyhow::Result<Started>>;
}

/// Implements [`Service`] for a service's configuration type — one with the fields
/// `common` (a [`CommonConfig`]) and `listen` (a `SocketAddr`) and an inherent
/// `from_env` — started by the async function `start(config, shutdown)`:
/// `gamehub_platform::impl_service!(LedgerConfig, start);`.
#[macro_export]
macro_rules! impl_service {
    ($config:ty, $start:path) => {
        impl $crate::runner::Service for $config {
            fn from_env(
                env: &$crate::config::Env,
            ) -> ::std::result::Result<Self, $crate::config::ConfigError> {
                <$config>::from_env(env)
            }

            fn common(&self) -> &$crate::config::CommonConfig {
                &self.common
            }

            fn listen(&self) -> ::std::net::SocketAddr {
                self.listen
            }

            async fn start(
                self,
                shutdown: $crate::server::Shutdown,
            ) -> ::anyhow::Result<$crate::server::Started> {
                $start(self, shutdown).await
            }
        }
    };
}

/// The command line of a service binary; `E` is the binary's own commands.
#[derive(Debug, Parser)]
struct ServiceCli<E: Subcommand> {
    #[command(subcommand)]
    command: Option<ServiceCommand<E>>,
}

#[derive(Debug, Subcommand)]
enum ServiceCommand<E: Subcommand> {
    /// Serve the gRPC API (the default), and /metrics when GAMEHUB_METRICS_ADDR is set.
    /// Configured by environment variables.
    Serve,
    /// Exit 0 if the service answers SERVING on its health service, else 1.
    Health {
        /// The service's URL; defaults to this configuration's port on 127.0.0.1.
        #[arg(long)]
        addr: Option<String>,
    },
    #[command(flatten)]
    Own(E),
}

/// No commands of the binary's own.
#[derive(Debug, Subcommand)]
pub enum NoCommands {}

/// The `main` of a service binary named `binary`: parses the command line (`about` is
/// its one-line description), reads `S`'s configuration and runs the command.
pub fn service_main<S: Service>(binary: &'static str, about: &'static str) -> ExitCode {
    service_main_with::<S, NoCommands>(binary, about, |none| match none {})
}

/// [`service_main`] for a binary with commands of its own (`E`), which `own` runs.
pub fn service_main_with<S: Service, E: Subcommand>(
    binary: &'static str,
    about: &'static str,
    own: impl FnOnce(E) -> anyhow::Result<ExitCode>,
) -> ExitCode {
    let matches = ServiceCli::<E>::command()
        .name(binary)
        .bin_name(binary)
        .about(about)
        .version(env!("CARGO_PKG_VERSION"))
        .get_matches();
    let cli = match ServiceCli::<E>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("{binary}: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run::<S, E>(binary, cli, own)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{binary}: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run<S: Service, E: Subcommand>(
    binary: &'static str,
    cli: ServiceCli<E>,
    own: impl FnOnce(E) -> anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    let config = S::from_env(&Env::process())?;
    match cli.command.unwrap_or(ServiceCommand::Serve) {
        ServiceCommand::Serve => {
            let common = config.common().clone();
            serve_until_terminated(binary, &common, |shutdown| config.start(shutdown)).await?;
            Ok(ExitCode::SUCCESS)
        }
        ServiceCommand::Health { addr } => {
            let tls = config.common().tls.server.is_some();
            Ok(health_exit_code(addr, config.listen(), tls).await)
        }
        ServiceCommand::Own(command) => own(command),
    }
}

/// Serving: telemetry (named `service`), metrics, `start`, then run until SIGTERM or
/// Ctrl-C (graceful shutdown) or until the service stops by itself.
pub async fn serve_until_terminated<F, Fut>(
    service: &str,
    config: &CommonConfig,
    start: F,
) -> anyhow::Result<()>
where
    F: FnOnce(Shutdown) -> Fut,
    Fut: Future<Output = anyhow::Result<Started>>,
{
    // Before anything starts (a database created, migrations run): production without
    // TLS is refused here as every listener would refuse it.
    config.tls.check_listener(config.environment)?;
    let _telemetry = telemetry::init(service, config)?;
    crate::metrics::install();
    let shutdown = Shutdown::new();
    crate::server::metrics_endpoint::serve_if_configured(config, &shutdown).await?;
    let mut started = start(shutdown.clone()).await?;
    tokio::select! {
        () = termination_signal() => shutdown.trigger(),
        result = &mut started.task => return result?,
    }
    started.task.await?
}

/// The `health` command (container healthchecks): SUCCESS iff the server at `addr` — by
/// default this configuration's port on 127.0.0.1, over TLS (`https://localhost:…`, the
/// name a certificate from `gamehub tls generate` carries) when `tls` says the listener
/// serves it — answers SERVING on the standard gRPC health protocol.
pub async fn health_exit_code(addr: Option<String>, listen: SocketAddr, tls: bool) -> ExitCode {
    let url = addr.unwrap_or_else(|| match tls {
        true => format!("https://localhost:{}", listen.port()),
        false => format!("http://127.0.0.1:{}", listen.port()),
    });
    match crate::client::check_health(&url, "").await {
        Ok(true) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
