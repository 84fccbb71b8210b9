//! Graceful shutdown: a [`Shutdown`] signal every long-running task of a service listens
//! to (streams, sweepers, settlers, the server itself), and [`termination_signal`], the
//! process's SIGTERM or Ctrl-C.

use std::sync::Arc;

use tokio::sync::watch;

/// Tells long-running work (streams, sweepers, settlers) that the process is stopping.
#[derive(Debug, Clone)]
pub struct Shutdown {
    tx: Arc<watch::Sender<bool>>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Self::new()
    }
}

impl Shutdown {
    /// A fresh, untriggered signal.
    pub fn new() -> Self {
        let (tx, _) = watch::channel(false);
        Self { tx: Arc::new(tx) }
    }

    /// Triggers it; every listener wakes.
    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    /// Whether it was triggered.
    pub fn is_triggered(&self) -> bool {
        *self.tx.borrow()
    }

    /// A listener to await.
    pub fn listener(&self) -> ShutdownListener {
        ShutdownListener {
            rx: self.tx.subscribe(),
        }
    }
}

/// Awaits a [`Shutdown`].
#[derive(Debug, Clone)]
pub struct ShutdownListener {
    rx: watch::Receiver<bool>,
}

impl ShutdownListener {
    /// Resolves once shutdown is triggered (at once if it already was).
    pub async fn wait(&mut self) {
        let _ = self.rx.wait_for(|triggered| *triggered).await;
    }

    /// Whether shutdown was triggered.
    pub fn is_triggered(&self) -> bool {
        *self.rx.borrow()
    }
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn termination_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("termination signal received");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn shutdown_wakes_every_listener() {
        let shutdown = Shutdown::new();
        let mut a = shutdown.listener();
        let mut b = shutdown.listener();
        shutdown.trigger();
        a.wait().await;
        b.wait().await;
        assert!(shutdown.is_triggered());
    }
}
