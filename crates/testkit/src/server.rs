//! A service running in the test's own process, as its `start` returns it: where it
//! listens and how to stop it. Dropping it stops it too, so a failing test leaves no
//! server behind in a runtime other tests share.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use gamehub_platform::server::{Shutdown, Started};
use tokio::task::JoinHandle;

/// A service started in this process.
#[derive(Debug)]
pub struct TestServer {
    /// Its URL (`http://127.0.0.1:PORT`).
    pub url: String,
    /// Its address.
    pub addr: SocketAddr,
    /// Its shutdown signal (its streams and background work listen to it).
    pub shutdown: Shutdown,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

impl TestServer {
    /// Starts a service with `start` (a service crate's `start` with its configuration).
    pub async fn start<F, Fut>(start: F) -> TestServer
    where
        F: FnOnce(Shutdown) -> Fut,
        Fut: Future<Output = anyhow::Result<Started>>,
    {
        let shutdown = Shutdown::new();
        let started = start(shutdown.clone())
            .await
            .unwrap_or_else(|e| panic!("the test service does not start: {e:#}"));
        TestServer {
            url: local_url(started.addr),
            addr: started.addr,
            shutdown,
            task: Some(started.task),
        }
    }

    /// Tells it to stop without waiting.
    pub fn trigger_stop(&self) {
        self.shutdown.trigger();
    }

    /// Stops it and waits (at most 15 s) until it no longer serves.
    pub async fn stop(&mut self) {
        self.shutdown.trigger();
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(15), task).await;
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

/// The URL a client in this process uses to reach `addr` (127.0.0.1 for an address
/// bound on every interface).
pub fn local_url(addr: SocketAddr) -> String {
    if addr.ip().is_unspecified() {
        format!("http://127.0.0.1:{}", addr.port())
    } else {
        format!("http://{addr}")
    }
}

/// A free local port (bound and released), for a service started later on it.
pub fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}
